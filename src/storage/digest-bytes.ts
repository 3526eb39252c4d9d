import { EMPTY_DIGEST, type MealsDigest } from '../domain/meals-digest.js';

/** A digest's sum as the stores keep it: 16 bytes, big-endian (domain/meals-digest.ts). */

export function digestSumBytes(sum: bigint): Buffer {
  const bytes = Buffer.alloc(16);
  bytes.writeBigUInt64BE(sum >> 64n, 0);
  bytes.writeBigUInt64BE(sum & 0xffff_ffff_ffff_ffffn, 8);
  return bytes;
}

export function digestSumOf(bytes: Uint8Array): bigint {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return (buffer.readBigUInt64BE(0) << 64n) | buffer.readBigUInt64BE(8);
}

/**
 * The digest a user's clock row holds: EMPTY_DIGEST when the user has no row (never a meal),
 * undefined while the store has not computed it yet (a row older than the digest's migration).
 */
export function storedDigest(
  hasClock: boolean,
  count: number | null | undefined,
  sum: Uint8Array | null | undefined,
): MealsDigest | undefined {
  if (!hasClock) return EMPTY_DIGEST;
  if (count === null || count === undefined || sum === null || sum === undefined) return undefined;
  return { count, sum: digestSumOf(sum) };
}
