import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Writes a non-negative integer in base62 (`0-9A-Za-z`), left-padded with `0` to `width`. */
export function toBase62(value: bigint, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0n) {
    out = BASE62[Number(rest % 62n)] + out;
    rest /= 62n;
  }
  return out.padStart(width, '0');
}

/**
 * A random identifier: `prefix` then `length` base62 characters from the CSPRNG. Used for
 * meal ids and key ids, which the contract wants random, never sequential.
 */
export function randomId(prefix: string, length = 22): string {
  // Rejection sampling keeps every character uniform: bytes 248-255 would favour 0-7.
  let out = prefix;
  while (out.length < prefix.length + length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < prefix.length + length) out += BASE62[byte % 62];
    }
  }
  return out;
}
