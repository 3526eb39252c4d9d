import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { toBase62 } from './random-id.js';
import type { ApiKeyRecord } from './key-records.js';

/**
 * API keys (docs/api.md#keys): `mxk_` + 43 base62 characters (32 random bytes) + 6 base62
 * characters of the CRC32 of those 43. The checksum lets the service refuse a mistyped or
 * made-up key without a lookup, and lets secret scanners find leaked keys by the same rule.
 */
export const KEY_PREFIX = 'mxk_';
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const KEY_RE = /^mxk_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/;
/** How much of a key `keys list` shows, so a user can tell keys apart without the secret. */
const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 8;

function checksumOf(body: string): string {
  return toBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

/** A new random key, in the contract's format. */
export function generateApiKey(): string {
  const body = toBase62(BigInt(`0x${randomBytes(32).toString('hex')}`), BODY_LENGTH);
  return `${KEY_PREFIX}${body}${checksumOf(body)}`;
}

/** True when the text has the key format and its checksum matches. */
export function isWellFormedApiKey(text: string): boolean {
  const m = KEY_RE.exec(text);
  return m !== null && m[1] !== undefined && checksumOf(m[1]) === m[2];
}

/** The SHA-256 digest a key is stored as: the plain key is never kept. */
export function digestApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** The part of a key safe to show again (`keys list`). */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

const KEY_LIKE_RE = /mxk_[0-9A-Za-z]{4,}/g;

// A key is ASCII letters, digits and `_`: only escapes of ASCII characters can hide one.
const ASCII_ESCAPE_RE = /%([0-7][0-9A-Fa-f])/g;

/** Decodes each ASCII escape on its own, so that a malformed one elsewhere cannot stop it. */
function asciiEscapesDecoded(text: string): string {
  return text.replace(ASCII_ESCAPE_RE, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * Text safe for logs: a key must never reach them, not even one sent in a URL by mistake,
 * percent-encoded (`mxk%5F…`) or encoded twice. Escapes of ASCII characters are decoded one
 * by one, never the whole text at once (one malformed escape such as `%ZZ` anywhere would
 * leave it all undecoded), until the text stops changing (a few rounds at most), and every
 * key-shaped run in it is replaced. Other escapes are left as they came.
 */
export function redactApiKeys(text: string): string {
  let decoded = text;
  for (let round = 0; round < 3; round += 1) {
    const next = asciiEscapesDecoded(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  return decoded.replace(KEY_LIKE_RE, 'mxk_[redacted]');
}

/** True while a key authenticates: not revoked, not expired (docs/api.md#keys). */
export function isActiveKey(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}
