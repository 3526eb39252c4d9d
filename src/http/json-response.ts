export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Headers on every response of the public listener (CONTRACT.md section 1). HSTS only where
 * the listener speaks TLS: a browser ignores it over plain HTTP anyway.
 */
export function commonHeaders(tls: boolean): Readonly<Record<string, string>> {
  return {
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(tls ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  };
}
