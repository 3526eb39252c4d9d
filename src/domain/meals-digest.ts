import { createHash } from 'node:crypto';
import { formatInstant } from './instant.js';

/**
 * The digest of a user's live meals (docs/api.md#verifying-a-copy-meals-digest): their count,
 * and the sum modulo 2^128 of one term per meal, the first 16 bytes of SHA-256 over
 * `<id>\n<modifiedAt>` read as an unsigned big-endian integer. A sum, so every write moves it
 * by its own meals alone, and any copy can check itself against it, meal by meal. The service
 * and the SDK both compute it here, so the two cannot come to hash different bytes.
 */
export interface MealsDigest {
  readonly count: number;
  /** 0 ≤ sum < 2^128. */
  readonly sum: bigint;
}

export const EMPTY_DIGEST: MealsDigest = { count: 0, sum: 0n };

/** The sum kept in [0, 2^128): a long-lived running digest stays 16 bytes, however many writes. */
const wrap = (sum: bigint) => BigInt.asUintN(128, sum);

/** The term of one live meal. `modifiedAt`: epoch ms, or its text as the API writes it. */
export function mealDigestTerm(id: string, modifiedAt: number | string): bigint {
  const instant = typeof modifiedAt === 'number' ? formatInstant(modifiedAt) : modifiedAt;
  const hash = createHash('sha256').update(`${id}\n${instant}`, 'utf8').digest();
  return (hash.readBigUInt64BE(0) << 64n) | hash.readBigUInt64BE(8);
}

/** What a write does to a digest: meals counted in and out, terms added and taken. */
export class DigestChange {
  count = 0;
  sum = 0n;

  /** A meal becomes live with this modifiedAt (created, changed or back from deletion). */
  add(id: string, modifiedAt: number | string): void {
    this.count += 1;
    this.sum = wrap(this.sum + mealDigestTerm(id, modifiedAt));
  }

  /** A live meal of this modifiedAt is no longer (changed or deleted). */
  remove(id: string, modifiedAt: number | string): void {
    this.count -= 1;
    this.sum = wrap(this.sum - mealDigestTerm(id, modifiedAt));
  }

  /** The digest after the change. */
  applyTo(digest: MealsDigest): MealsDigest {
    return { count: digest.count + this.count, sum: wrap(digest.sum + this.sum) };
  }
}

/** The `Meals-Digest` header's value: `count=<n>, sum=<32 lowercase hex digits>`. */
export function formatMealsDigest(digest: MealsDigest): string {
  return `count=${digest.count}, sum=${digest.sum.toString(16).padStart(32, '0')}`;
}

const HEADER_RE = /^\s*count=(\d{1,15})\s*,\s*sum=([0-9a-fA-F]{32})\s*$/;

/** A `Meals-Digest` header's value read back; undefined for anything not in its form. */
export function parseMealsDigest(text: string): MealsDigest | undefined {
  const match = HEADER_RE.exec(text);
  if (match === null) return undefined;
  return { count: Number(match[1]), sum: BigInt(`0x${match[2]}`) };
}

/** Both values alike: the copy holds exactly the meals the other digest describes. */
export const sameMealsDigest = (a: MealsDigest, b: MealsDigest): boolean => a.count === b.count && a.sum === b.sum;
