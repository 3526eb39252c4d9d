export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** On every response of the public listener (docs/api.md#the-rest-of-the-transport). */
export const ALWAYS_SENT_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/** Strict-Transport-Security, on every response over TLS. */
export const HSTS = 'max-age=31536000';

/**
 * Headers on every response of the public listener (docs/api.md#the-rest-of-the-transport). HSTS
 * only where the listener speaks TLS: a browser ignores it over plain HTTP anyway.
 */
export function commonHeaders(tls: boolean): Readonly<Record<string, string>> {
  return tls ? { ...ALWAYS_SENT_HEADERS, 'strict-transport-security': HSTS } : ALWAYS_SENT_HEADERS;
}
