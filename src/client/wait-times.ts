/**
 * How long to wait, read from the server's headers or computed for retries. Pure functions.
 */

/**
 * `Retry-After` (RFC 9110 section 10.2.3, https://www.rfc-editor.org/rfc/rfc9110#field.retry-after):
 * delay-seconds or an HTTP-date. Returns milliseconds, or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The per-key interval the server announces in `RateLimit-Policy` (docs/api.md#limits:
 * `"daily";q=1000;w=86400, "interval";q=1;w=3`, the interval left out when there is none).
 * Returns milliseconds (0 for no interval), or undefined when the header is absent.
 */
export function intervalFromPolicy(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  for (const item of value.split(',')) {
    const [name, ...params] = item.trim().split(';');
    if (name?.trim() !== '"interval"') continue;
    const quota = params.find((p) => p.trim().startsWith('q='));
    const window = params.find((p) => p.trim().startsWith('w='));
    const q = Number(quota?.trim().slice(2) ?? '1');
    const w = Number(window?.trim().slice(2));
    if (!Number.isFinite(w) || w < 0 || !Number.isFinite(q) || q < 1) return undefined;
    return Math.ceil((w * 1000) / q);
  }
  return 0;
}

export interface BackoffOptions {
  /** The cap of the first retry's delay (default 500 ms); it doubles on each retry. */
  readonly initialMs?: number;
  /** No delay is longer than this (default 30 s). */
  readonly maxMs?: number;
}

/**
 * Capped exponential backoff with full jitter: a uniform delay in [0, min(max, initial * 2^(n-1))]
 * for the n-th retry (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/).
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}, random = Math.random): number {
  const initial = options.initialMs ?? 500;
  const max = options.maxMs ?? 30_000;
  const ceiling = Math.min(max, initial * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}
