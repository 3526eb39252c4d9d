/**
 * What the SDK throws, after ky's HTTPError: small classes carrying the response and its parsed
 * body, with messages that describe themselves (`Request failed with 429 rate_limited: GET
 * /v1/meals`). `code` is the service's error code (docs/errors.md), the discriminant.
 */

import { describeNetworkFailure, type NetworkProblem } from './network-failure.js';

/** The request as sent, for messages and debugging. The key travels in a header, never here. */
export interface RequestInfo {
  readonly method: string;
  readonly url: string;
}

/** The response as received. */
export interface ResponseInfo {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text (decompressed). */
  readonly text: string;
}

/** The base class: `instanceof MealExportError` catches everything the client throws. */
export class MealExportError extends Error {
  override name = 'MealExportError';
}

/** The contract's error codes; a proxy in front of the service may answer with others. */
export type MealExportErrorCode =
  | 'missing_parameter'
  | 'invalid_parameter'
  | 'bad_request'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'browser_forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'resync_required'
  | 'request_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable'
  /** The body was not the contract's error JSON (a proxy's page, say). */
  | 'unexpected_response';

interface ErrorBody {
  readonly message?: unknown;
  readonly code?: unknown;
  readonly param?: unknown;
}

function errorFields(body: unknown): ErrorBody {
  if (typeof body !== 'object' || body === null) return {};
  const error = (body as { error?: unknown }).error;
  return typeof error === 'object' && error !== null ? (error as ErrorBody) : {};
}

/** A non-2xx answer. */
export class MealExportHttpError extends MealExportError {
  override name = 'MealExportHttpError';
  readonly status: number;
  /**
   * The body's code. A later /v1 may add codes within the documented statuses
   * (docs/api.md#compatibility), so any other string may come too: the error's class, chosen by
   * its status, is what to act on. (`string & {}` keeps the known names in an editor's completion.)
   */
  readonly code: MealExportErrorCode | (string & Record<never, never>);
  /** The query parameter at fault (400 only). */
  readonly param: string | undefined;
  /** The server's own message, when the body had one. */
  readonly serverMessage: string | undefined;
  /** The parsed body (undefined when it was not JSON). */
  readonly body: unknown;
  readonly request: RequestInfo;
  readonly response: ResponseInfo;

  constructor(request: RequestInfo, response: ResponseInfo, body: unknown) {
    const fields = errorFields(body);
    const code = typeof fields.code === 'string' ? fields.code : 'unexpected_response';
    const param = typeof fields.param === 'string' ? fields.param : undefined;
    const path = new URL(request.url).pathname;
    super(
      `Request failed with ${response.status} ${code}${param === undefined ? '' : ` (${param})`}: ${request.method} ${path}`,
    );
    this.status = response.status;
    this.code = code;
    this.param = param;
    this.serverMessage = typeof fields.message === 'string' ? fields.message : undefined;
    this.body = body;
    this.request = request;
    this.response = response;
  }
}

/** 401: the key is missing, unknown, revoked or expired. Another request will not help. */
export class MealExportAuthError extends MealExportHttpError {
  override name = 'MealExportAuthError';
}

/** 400: a parameter (named by `param`) or the saved cursor is wrong. */
export class MealExportBadRequestError extends MealExportHttpError {
  override name = 'MealExportBadRequestError';
}

/** 410: tombstones from that far back are gone; `sync()` handles it by starting again. */
export class MealExportResyncRequiredError extends MealExportHttpError {
  override name = 'MealExportResyncRequiredError';
}

/**
 * A second `410 resync_required` in one `sync()` run, after it had already started again from
 * the beginning: the server pruned tombstones the run had not reached yet. Starting over once
 * more could loop; the run stops instead (`cause` is the second 410). Running the sync again
 * later resumes from the last position saved.
 */
export class MealExportResyncLoopError extends MealExportError {
  override name = 'MealExportResyncLoopError';

  constructor(cause: MealExportResyncRequiredError) {
    super(
      'The server answered 410 resync_required again after a full resync in the same sync run: stopping instead of starting over once more; sync again later',
      { cause },
    );
  }
}

/** 429 whose Retry-After is longer than the client is allowed to wait (the daily quota, usually). */
export class MealExportRateLimitError extends MealExportHttpError {
  override name = 'MealExportRateLimitError';
  /** How long the server asked to wait, in milliseconds. */
  readonly retryAfterMs: number;

  constructor(request: RequestInfo, response: ResponseInfo, body: unknown, retryAfterMs: number) {
    super(request, response, body);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * No answer: connection refused or reset, an unknown host, a timeout, a TLS failure, a server
 * that speaks HTTPS to an http:// URL (or plain HTTP to an https:// one). The message names
 * where and why (`cannot connect to https://127.0.0.1:9999: connection refused`); `cause` has
 * the details.
 */
export class MealExportNetworkError extends MealExportError {
  override name = 'MealExportNetworkError';
  readonly request: RequestInfo;
  /** The system or TLS error code (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT ...), when known. */
  readonly errorCode: string | undefined;
  /** What went wrong, as a code to branch on (`connection_refused`, `speaks_https` ...). */
  readonly problem: NetworkProblem;
  /** Whether the same request may pass later; the client retries only these. */
  readonly retryable: boolean;
  /** The requests made in a row that failed before this was thrown (1 when it was not retried). */
  readonly attempts: number;

  constructor(request: RequestInfo, cause: unknown, hint = '', options: { attempts?: number } = {}) {
    const failure = describeNetworkFailure(request.url, cause);
    const attempts = options.attempts ?? 1;
    const gaveUp = attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
    super(`${failure.text}${hint}${gaveUp}`, { cause });
    this.request = request;
    this.errorCode = failure.code;
    this.problem = failure.problem;
    this.retryable = failure.retryable;
    this.attempts = attempts;
  }
}

/** A 2xx whose body is not the contract's page: a proxy or a different service answered. */
export class MealExportResponseError extends MealExportError {
  override name = 'MealExportResponseError';
  readonly request: RequestInfo;
  readonly response: ResponseInfo;

  constructor(request: RequestInfo, response: ResponseInfo, what: string) {
    super(`Unexpected response (${what}) with ${response.status}: ${request.method} ${new URL(request.url).pathname}`);
    this.request = request;
    this.response = response;
  }
}

/** Which check of a webhook call failed, in the order they are made. */
export type WebhookVerificationCheck = 'headers' | 'timestamp' | 'signature' | 'payload';

/**
 * A webhook call that is not the service's, or not fresh (docs/webhooks.md#a-complete-receiver):
 * answer it with a 4xx and do not act on it. The message says which check failed; it never quotes
 * the secret.
 */
export class MealExportWebhookVerificationError extends MealExportError {
  override name = 'MealExportWebhookVerificationError';
  readonly check: WebhookVerificationCheck;

  constructor(check: WebhookVerificationCheck, detail: string, options?: ErrorOptions) {
    super(`Webhook verification failed (${check}): ${detail}`, options);
    this.check = check;
  }
}

/** The error class for a status: the typed subclasses the contract gives a meaning to. */
export function httpErrorFor(request: RequestInfo, response: ResponseInfo, body: unknown): MealExportHttpError {
  switch (response.status) {
    case 400:
      return new MealExportBadRequestError(request, response, body);
    case 401:
      return new MealExportAuthError(request, response, body);
    case 410:
      return new MealExportResyncRequiredError(request, response, body);
    default:
      return new MealExportHttpError(request, response, body);
  }
}
