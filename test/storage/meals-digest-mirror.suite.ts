import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FeedPosition, MealContent } from '../../src/domain/meal.js';
import { createSeededRandom, hashSeed, type SeededRandom } from '../../src/domain/seeded-random.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { runSharedSuite } from '../support/shared-suite.js';
import { assertLiveDigest, expectedDigest, fullFeed, shown } from '../support/live-digest.js';
import {
  feed,
  type FeedItem,
  itemTexts,
  meal,
  type StoreSuiteOptions,
  T0,
  withStore,
} from '../support/store-fixtures.js';

const USER = 'u1';
/** Bounded: each round a new copy starts while both handles write this many times. */
const ROUNDS = 5;
const WRITES_PER_ROUND = 12;
/** Few ids, so that writes meet the same meals: changes, deletions, meals brought back. */
const IDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'é', '🍕', '寿司', 'z'];
/** Short pages, so that a pass spans many writes. */
const PAGE = 3;
/** Far more pages than the writes can make: a reader that never catches up fails instead of hanging. */
const MAX_PAGES_PER_ROUND = 2_000;

async function* batches(...list: MealContent[][]): AsyncGenerator<MealContent[]> {
  for (const batch of list) yield batch;
}

/** One write chosen at random: an upsert of one to three meals, an import of two batches (if `imports`), or a delete. */
async function randomWrite(storage: Storage, random: SeededRandom, now: number, imports: boolean): Promise<void> {
  const some = () =>
    Array.from({ length: 1 + random.int(3) }, () => meal(random.pick(IDS), { title: `t${random.int(4)}` }));
  const kind = random.int(4);
  if (kind === 0) await storage.writes.deleteMeal(USER, random.pick(IDS), now);
  else if (kind === 1 && imports) await storage.writes.importMeals(USER, batches(some(), some()), now);
  else await storage.writes.upsertMeals(USER, some(), now);
}

/**
 * A copy of the user's meals kept as a client keeps one (docs/api.md#the-meals-last-modified-header):
 * a full pass without tombstones, then a follow with them from the pass's first clock + 1 ms.
 * Only a follow page that reaches the end (hasMore false) describes a complete copy: the pass's
 * last page does not, as a meal deleted behind the pass is still in the copy until the follow.
 */
class MirroringReader {
  readonly copy = new Map<string, string>();
  private following = false;
  private followFrom = 0;
  private after: FeedPosition | undefined;

  constructor(private readonly storage: Storage) {}

  /** Reads the next page; true when it was a follow page at the end, its digest checked. */
  async step(label: string): Promise<boolean> {
    const page = await feed(this.storage, {
      userId: USER,
      includeDeleted: this.following,
      from: this.following ? this.followFrom : 0,
      after: this.after,
      limit: PAGE,
    });
    const items = itemTexts(page).map((text) => JSON.parse(text) as FeedItem);
    if (!this.following && this.after === undefined) {
      // The pass's first answer: its clock is where the follow starts (absent: where the pass began).
      this.followFrom = page.newestChangeAt === undefined ? 0 : page.newestChangeAt + 1;
    }
    for (const item of items) {
      if (item.deleted === true) this.copy.delete(item.id);
      else this.copy.set(item.id, item.modifiedAt);
    }
    this.after = page.last ?? this.after;
    if (page.hasMore) return false;
    if (!this.following) {
      this.following = true;
      this.after = undefined;
      return false;
    }
    const copied = expectedDigest([...this.copy].map(([id, modifiedAt]) => ({ id, modifiedAt })));
    assert.equal(shown(page.liveDigest), shown(copied), `${label}: the page's digest is the complete copy's`);
    return true;
  }
}

/**
 * The digest under concurrent writers: two handles on one store write the same user's meals
 * (on PostgreSQL the writes race; on SQLite each call is whole, and they interleave with the
 * reader turn by turn), while a reader keeps a copy page by page. Every page that completes the
 * copy carries the digest of exactly that copy.
 */
export function runMealsDigestMirrorSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: the digest seen by a copy kept while others write', ({ test }) => {
    test("every follow page that completes a copy carries the copy's digest, while two handles write", async () => {
      await withStore(options, async (storage, location) => {
        const second = await openStorage(location);
        try {
          const random = createSeededRandom(hashSeed('meals digest mirror'));
          let checkedWhileWriting = 0;
          for (let round = 0; round < ROUNDS; round += 1) {
            let writing = true;
            // One writer imports: on SQLite two imports of one thread would each wait for the
            // other's write lock, and an import's handle takes no other call (the reader's).
            const writer = async (handle: Storage, offset: number) => {
              for (let i = 0; i < WRITES_PER_ROUND; i += 1) {
                await randomWrite(handle, random, T0 + round * 1_000 + offset + i, handle === second);
                // A few turns between writes, so that the reader catches up now and then while they go on.
                for (let turns = random.int(8); turns >= 0; turns -= 1) await nextTurn();
              }
            };
            const writes = Promise.all([writer(storage, 0), writer(second, 500)]).finally(() => {
              writing = false;
            });
            const reader = new MirroringReader(storage);
            try {
              // Pages until the writers are done and a complete follow page came after that.
              for (let pages = 0; ; pages += 1) {
                assert.ok(pages < MAX_PAGES_PER_ROUND, `round ${round}: the copy never caught up`);
                const finished = !writing;
                const complete = await reader.step(`round ${round}, page ${pages}`);
                if (complete && finished) break;
                if (complete) checkedWhileWriting += 1;
                await nextTurn();
              }
            } finally {
              // A failed check leaves no write running on a handle about to close.
              await writes.catch(() => undefined);
            }
            await writes;
            const live = await fullFeed(storage, USER);
            assert.deepEqual(
              [...reader.copy].sort(),
              live.map((item) => [item.id, item.modifiedAt]).sort(),
              `round ${round}: the copy is the user's live meals`,
            );
            await assertLiveDigest(storage, USER);
          }
          assert.ok(
            checkedWhileWriting >= ROUNDS,
            `only ${checkedWhileWriting} copies checked while the writes went on`,
          );
        } finally {
          await second.close();
        }
      });
    });
  });
}
