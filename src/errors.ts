/**
 * Every error code of the public API, one table mapping each to its HTTP status. Codes are
 * stable and never reused; docs/errors.md documents each.
 */
export const PUBLIC_STATUS_BY_CODE = {
  missing_parameter: 400,
  invalid_parameter: 400,
  bad_request: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  browser_forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  resync_required: 410,
  request_too_large: 431, // 414 when it is the URL that is too long: see AppError.status
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<string, number>;

/** The codes only the host API answers besides the public ones it shares (docs/host-api.md#errors). */
export const HOST_STATUS_BY_CODE = {
  missing_token: 401,
  invalid_token: 401,
  request_timeout: 408,
  id_taken: 409,
  too_many_keys: 409,
  too_many_webhooks: 409,
  invalid_record: 422,
} as const satisfies Record<string, number>;

export const STATUS_BY_CODE = { ...PUBLIC_STATUS_BY_CODE, ...HOST_STATUS_BY_CODE } as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

export interface AppErrorOptions {
  /** The query parameter (or the host API's record field) at fault; rendered as `error.param`. */
  readonly param?: string;
  /** The host API's import: the 1-based line at fault; rendered as `error.line`. */
  readonly line?: number;
  /** Overrides the table's status where one code has two (request_too_large: 414 or 431). */
  readonly status?: number;
  /** Extra response headers (Retry-After, Allow, WWW-Authenticate). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/** An error the API answers with its contract code. Domain code throws it and never picks a status. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly line: number | undefined;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.param = options.param;
    this.line = options.line;
    this.status = options.status ?? STATUS_BY_CODE[code];
    this.headers = options.headers ?? {};
  }
}

/** The contract's error body: `{ "error": { "message", "code", "param"?, "line"? } }`. */
export function errorBody(code: ErrorCode, message: string, param?: string, line?: number): string {
  const error = param === undefined ? { message, code } : { message, code, param };
  return JSON.stringify({ error: line === undefined ? error : { ...error, line } });
}

/**
 * A failure of the command line: a one-line message on stderr and a non-zero exit.
 * `usage` errors (exit 2) are the caller's mistakes in the command itself; the rest exit 1.
 */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, options: { usage?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.usage ? 2 : 1;
  }
}
