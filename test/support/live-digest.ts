import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { FeedPosition } from '../../src/domain/meal.js';
import type { MealsDigest } from '../../src/domain/meals-digest.js';
import type { FeedPage } from '../../src/storage/meal-feed.js';
import type { Storage } from '../../src/storage/storage.js';
import { feed, type FeedItem, itemTexts, type TestFeedQuery } from './store-fixtures.js';

/**
 * The digest of a user's live meals computed here, from the feed, without the product's code
 * (domain/meals-digest.ts): a test that called it would agree with any mistake it makes.
 */

const MODULUS = 1n << 128n;

/** One live meal's term: the first 16 bytes of SHA-256 over the UTF-8 of `<id>\n<modifiedAt>`. */
export function expectedTerm(id: string, modifiedAt: string): bigint {
  const hash = createHash('sha256')
    .update(Buffer.from(`${id}\n${modifiedAt}`, 'utf8'))
    .digest();
  return BigInt(`0x${hash.subarray(0, 16).toString('hex')}`);
}

/** The digest of these live meals, `modifiedAt` as the feed writes it. */
export function expectedDigest(meals: Iterable<{ readonly id: string; readonly modifiedAt: string }>): MealsDigest {
  let count = 0;
  let sum = 0n;
  for (const meal of meals) {
    count += 1;
    sum = (sum + expectedTerm(meal.id, meal.modifiedAt)) % MODULUS;
  }
  return { count, sum };
}

/** A digest as a failure message shows it. */
export const shown = (digest: MealsDigest | undefined): string =>
  digest === undefined ? 'undefined' : `count=${digest.count}, sum=${digest.sum.toString(16).padStart(32, '0')}`;

const itemsOf = (page: FeedPage): FeedItem[] => itemTexts(page).map((text) => JSON.parse(text) as FeedItem);
const positionOf = (item: FeedItem): FeedPosition => ({ modifiedAt: Date.parse(item.modifiedAt), id: item.id });

/** Every item of the user's feed, page after page from the beginning. */
export async function fullFeed(storage: Storage, userId: string, includeDeleted = false): Promise<FeedItem[]> {
  const items: FeedItem[] = [];
  let after: FeedPosition | undefined;
  for (;;) {
    const page = await feed(storage, { userId, includeDeleted, after, limit: 5000 });
    items.push(...itemsOf(page));
    if (!page.hasMore) return items;
    after = page.last;
  }
}

/**
 * Checks the user's digest against the live meals a full read lists, on pages of every kind
 * (with and without tombstones, short, after a cursor, empty past the end, empty from a later
 * instant): the digest is the user's, not the page's. Returns it.
 */
export async function assertLiveDigest(storage: Storage, userId: string): Promise<MealsDigest> {
  const expected = expectedDigest(await fullFeed(storage, userId));
  const everything = await fullFeed(storage, userId, true);
  const first = everything[0];
  const last = everything.at(-1);
  const queries: TestFeedQuery[] = [
    { userId },
    { userId, includeDeleted: true },
    { userId, limit: 1 },
    { userId, includeDeleted: true, limit: 2 },
    { userId, includeDeleted: true, limit: 2, after: first === undefined ? undefined : positionOf(first) },
    { userId, after: last === undefined ? undefined : positionOf(last) },
    { userId, includeDeleted: true, from: Date.UTC(2100, 0, 1) },
  ];
  for (const query of queries) {
    const page = await feed(storage, query);
    assert.equal(
      shown(page.liveDigest),
      shown(expected),
      `the digest of ${userId}'s ${expected.count} live meals, on a page of ${JSON.stringify(query)}`,
    );
  }
  return expected;
}
