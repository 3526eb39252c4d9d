import { hash } from 'node:crypto';
import { createInstantFormatter, formatInstant } from './instant.js';

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
/** Terms a change adds into its 32-bit limbs before folding them: far below 2^53 / 2^32. */
const TERMS_PER_FOLD = 1 << 20;

/** SHA-256 of the meal's `<id>\n<modifiedAt>`, whose first 16 bytes are its term. */
function termHash(id: string, modifiedAt: string): Buffer {
  return hash('sha256', `${id}\n${modifiedAt}`, 'buffer');
}

/** The sum kept in [0, 2^128): a long-lived running digest stays 16 bytes, however many writes. */
const wrap = (sum: bigint) => BigInt.asUintN(128, sum);

/**
 * The term of one live meal. `modifiedAt`: epoch ms, or its text as the API writes it.
 * PostgreSQL's twin: meal_export_digest_term (storage/postgres/postgres-functions-digest.ts).
 */
export function mealDigestTerm(id: string, modifiedAt: number | string): bigint {
  const bytes = termHash(id, typeof modifiedAt === 'number' ? formatInstant(modifiedAt) : modifiedAt);
  return (bytes.readBigUInt64BE(0) << 64n) | bytes.readBigUInt64BE(8);
}

/**
 * What a write does to a digest: meals counted in and out, terms added and taken. Terms add
 * into four 32-bit limbs held as plain numbers and fold into a bigint now and then: a write of
 * a million meals pays for a hash per meal, not for a bigint per meal.
 */
export class DigestChange {
  count = 0;
  private readonly limbs = [0, 0, 0, 0];
  /** A write's modifiedAt values are consecutive: the formatter keeps their second's text. */
  private readonly format = createInstantFormatter();
  private folded = 0n;
  private unfolded = 0;

  /** A meal becomes live with this modifiedAt (created, changed or back from deletion). */
  add(id: string, modifiedAt: number | string): void {
    this.count += 1;
    this.addTerm(termHash(id, this.instant(modifiedAt)), 1);
  }

  /** A live meal of this modifiedAt is no longer (changed or deleted). */
  remove(id: string, modifiedAt: number | string): void {
    this.count -= 1;
    this.addTerm(termHash(id, this.instant(modifiedAt)), -1);
  }

  /** The sum of the terms added less those taken, modulo 2^128. */
  get sum(): bigint {
    this.fold();
    return this.folded;
  }

  /** The digest after the change. */
  applyTo(digest: MealsDigest): MealsDigest {
    return { count: digest.count + this.count, sum: wrap(digest.sum + this.sum) };
  }

  private instant(modifiedAt: number | string): string {
    return typeof modifiedAt === 'number' ? this.format(modifiedAt) : modifiedAt;
  }

  private addTerm(bytes: Buffer, sign: 1 | -1): void {
    const limbs = this.limbs;
    for (let i = 0; i < 4; i += 1) limbs[i] = (limbs[i] ?? 0) + sign * bytes.readUInt32BE(i * 4);
    this.unfolded += 1;
    if (this.unfolded === TERMS_PER_FOLD) this.fold();
  }

  private fold(): void {
    const [a = 0, b = 0, c = 0, d = 0] = this.limbs;
    this.folded = wrap(this.folded + (BigInt(a) << 96n) + (BigInt(b) << 64n) + (BigInt(c) << 32n) + BigInt(d));
    this.limbs.fill(0);
    this.unfolded = 0;
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
