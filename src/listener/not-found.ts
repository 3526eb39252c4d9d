import { AppError } from '../errors.js';

/**
 * The one not-found answer of the JSON listeners: `404 not_found` saying where that listener's
 * API is. The path is never echoed: a key pasted into a URL by mistake must not come back in
 * the body, nor anything else of the request.
 */
export function notFoundMessage(where: string): string {
  return `No such resource: ${where}.`;
}

export function noSuchResource(where: string): AppError {
  return new AppError('not_found', notFoundMessage(where));
}

/** Where the public listener's API is. */
export const PUBLIC_API_WHERE = 'the API is GET /v1/meals (see /v1/openapi.json)';
/** Where the host API is. */
export const HOST_API_WHERE = 'the host API lives under /host/v1 (see /host/v1/openapi.json)';
