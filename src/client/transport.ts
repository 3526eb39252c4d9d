import type { ResponseInfo } from './errors.js';

/**
 * How the client sends one GET. Two implementations: node:https (the default, because on
 * Node 20 global fetch has no per-request CA and undici's Agent is not importable without
 * installing undici), and any fetch-compatible function.
 */
export interface HttpTransport {
  get(
    url: URL,
    headers: Readonly<Record<string, string>>,
    signal: AbortSignal | undefined,
    options?: TransportGetOptions,
  ): Promise<ResponseInfo>;
  /** Releases kept-alive connections. */
  close(): void;
}

/** What a transport is told about one request, beyond its URL and headers. */
export interface TransportGetOptions {
  /**
   * The server may hold this request this long before it sends a byte (a long poll, `wait`,
   * docs/api.md#changes-as-they-happen-wait): a transport that times out a silent request must
   * allow this much more for it. Absent: an ordinary request, answered at once.
   */
  readonly holdMs?: number;
}

/**
 * A page of 5000 meals is ~1.6 MB; 64 MiB leaves room for pages of
 * long descriptions while a server (or a proxy, or a gzip bomb) cannot make the client buffer
 * without end.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The code of the error a transport fails with when a body is over its cap; asking again would not help. */
export const RESPONSE_TOO_LARGE = 'ERR_RESPONSE_TOO_LARGE';

/** The error both built-in transports fail with past `maxBytes` (the client does not retry it). */
export function responseTooLarge(maxBytes: number): Error {
  const error = new Error(`the response is larger than ${maxBytes} bytes: ask for smaller pages (limit)`);
  return Object.assign(error, { code: RESPONSE_TOO_LARGE });
}
