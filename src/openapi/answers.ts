import { type ErrorCode, errorBody } from '../errors.js';
import { COMMON_HEADERS, type Headers } from './headers.js';

/**
 * The answers of both OpenAPI documents (the public one, docs/api.md#the-openapi-document, and
 * the host API's, docs/host-api.md), status by status, each with its headers and an example. A
 * HEAD's answers are its GET's without the content: one builder makes both, so the two cannot
 * differ.
 */
export interface Example {
  readonly summary: string;
  readonly value: unknown;
}

export interface Answer {
  readonly description: string;
  /** The component schema of the body. */
  readonly schema: string;
  readonly headers: Headers;
  readonly examples: Readonly<Record<string, Example>>;
}

export type Responses = Record<string, object>;

/** An error body as the service renders it (errors.ts), as an example; its summary names it. */
export function errorExample(code: ErrorCode, message: string, param?: string, summary: string = code): Example {
  return { summary, value: JSON.parse(errorBody(code, message, param)) };
}

function responseOf(answer: Answer, withBody: boolean): object {
  return {
    description: answer.description,
    headers: answer.headers,
    ...(withBody
      ? {
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${answer.schema}` },
              examples: answer.examples,
            },
          },
        }
      : {}),
  };
}

export function responsesOf(answers: Readonly<Record<string, Answer>>, withBody: boolean): Responses {
  return Object.fromEntries(Object.entries(answers).map(([status, answer]) => [status, responseOf(answer, withBody)]));
}

export const error = (description: string, headers: Headers, ...examples: Example[]): Answer => ({
  description,
  schema: 'Error',
  headers: { ...COMMON_HEADERS, ...headers },
  // Named by their summaries, which differ within an answer.
  examples: Object.fromEntries(examples.map((example) => [example.summary, example])),
});

export const BAD_REQUEST = errorExample('bad_request', 'The request is malformed.');
export const HEADERS_TOO_LARGE = error(
  'request_too_large: the request headers are over 16 KiB.',
  {},
  errorExample('request_too_large', 'The request headers are larger than 16 KiB.'),
);
export const INTERNAL_ERROR = (headers: Headers) =>
  error(
    'internal_error: a bug of the service; nothing of its internals is in the body.',
    headers,
    errorExample('internal_error', 'Internal server error.'),
  );
