import type { ResponseInfo } from './errors.js';

/**
 * How the client sends one GET. Two implementations: node:https (the default, because on
 * Node 20 global fetch has no per-request CA and undici's Agent is not importable without
 * installing undici), and any fetch-compatible function.
 */
export interface HttpTransport {
  get(url: URL, headers: Readonly<Record<string, string>>, signal: AbortSignal | undefined): Promise<ResponseInfo>;
  /** Releases kept-alive connections. */
  close(): void;
}

/** The code of the error a transport fails with when a body is over its cap; asking again would not help. */
export const RESPONSE_TOO_LARGE = 'ERR_RESPONSE_TOO_LARGE';

/** The part of the fetch API the client uses (globalThis.fetch, undici's fetch, a test double). */
export type FetchFunction = (
  url: string,
  init: { method: 'GET'; headers: Record<string, string>; signal?: AbortSignal },
) => Promise<{
  status: number;
  headers: { forEach(fn: (value: string, name: string) => void): void };
  text(): Promise<string>;
}>;

/** A transport over fetch: it decompresses by itself, so no Accept-Encoding is set here. */
export function createFetchTransport(fetchFn: FetchFunction): HttpTransport {
  return {
    async get(url, headers, signal) {
      const init = { method: 'GET' as const, headers: { ...headers }, ...(signal === undefined ? {} : { signal }) };
      const response = await fetchFn(url.href, init);
      const received: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        received[name.toLowerCase()] = value;
      });
      return { status: response.status, headers: received, text: await response.text() };
    },
    close() {},
  };
}
