import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { toBase62 } from './random-id.js';
import type { ApiKeyRecord } from '../storage/storage.js';

/**
 * API keys (CONTRACT.md section 3): `mxk_` + 43 base62 characters (32 random bytes) + 6 base62
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

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Text safe for logs: a key must never reach them, not even one sent in a URL by mistake,
 * percent-encoded (`mxk%5F…`) or encoded twice. The text is decoded until it stops changing
 * (a few rounds at most) and every key-shaped run in it is replaced.
 */
export function redactApiKeys(text: string): string {
  let decoded = text;
  for (let round = 0; round < 3; round += 1) {
    const next = percentDecoded(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  return decoded.replace(KEY_LIKE_RE, 'mxk_[redacted]');
}

/** True while a key authenticates: not revoked, not expired (CONTRACT.md section 3). */
export function isActiveKey(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}
