import assert from 'node:assert/strict';
import { runSharedSuite } from '../support/shared-suite.js';
import { type FeedPosition, MEAL_FIELDS } from '../../src/domain/meal.js';
import { randomId } from '../../src/domain/random-id.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { EMPTY_DIGEST } from '../../src/domain/meals-digest.js';
import {
  at,
  feed,
  type FeedItem,
  feedItems,
  itemTexts,
  meal,
  type StoreSuiteOptions,
  T0,
  type TestFeedQuery,
  withStore,
} from '../support/store-fixtures.js';

/**
 * listFeed and exportMeals (storage/meal-feed.ts), the same on every backend: feed order,
 * where a page starts, hasMore and the last position, and the user's change clock read in the
 * page's own snapshot.
 */
export function runMealFeedSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: the feed', ({ test }) => {
    /** Five meals m1..m5 at T0..T0+4, and m2 then deleted at T0+5. */
    async function seed(storage: Storage): Promise<void> {
      await storage.writes.upsertMeals(
        'u1',
        ['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => meal(id)),
        T0,
      );
      await storage.writes.deleteMeal('u1', 'm2', T0);
    }

    test('from is inclusive', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        const items = await feedItems(storage, { userId: 'u1', from: T0 + 2 });
        assert.deepEqual(
          items.map((item) => item.id),
          ['m3', 'm4', 'm5'],
        );
        assert.deepEqual(await feedItems(storage, { userId: 'u1', from: T0 + 6 }), []);
      });
    });

    test('after is exclusive, and with from both filter: the later of the two is where the page starts', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        const ids = async (query: TestFeedQuery) => (await feedItems(storage, query)).map((item) => item.id);
        const after = { modifiedAt: T0 + 2, id: 'm3' };
        assert.deepEqual(await ids({ userId: 'u1', after }), ['m4', 'm5']);
        assert.deepEqual(await ids({ userId: 'u1', after, from: 0 }), ['m4', 'm5']);
        assert.deepEqual(
          await ids({ userId: 'u1', after, from: T0 + 2 }),
          ['m4', 'm5'],
          'a cursor at from: the cursor',
        );
        assert.deepEqual(await ids({ userId: 'u1', after, from: T0 + 4 }), ['m5'], 'from later than the cursor');
        assert.deepEqual(await ids({ userId: 'u1', after, from: T0 + 100 }), []);
      });
    });

    test('a position between two changes resumes at the next one, by (modifiedAt, id)', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        const ids = async (after: { modifiedAt: number; id: string }) =>
          (await feedItems(storage, { userId: 'u1', after })).map((item) => item.id);
        assert.deepEqual(await ids({ modifiedAt: T0 + 2, id: 'm2' }), ['m3', 'm4', 'm5']);
        assert.deepEqual(await ids({ modifiedAt: T0 + 2, id: 'm4' }), ['m4', 'm5']);
        assert.deepEqual(await ids({ modifiedAt: T0 + 2, id: '' }), ['m3', 'm4', 'm5']);
      });
    });

    test('without includeDeleted no item has deleted; with it live meals end with "deleted":false}', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        const plain = await feed(storage, { userId: 'u1' });
        for (const text of itemTexts(plain)) assert.equal(text.includes('"deleted"'), false, text);
        const all = await feed(storage, { userId: 'u1', includeDeleted: true });
        assert.equal(all.count, 5);
        for (const text of itemTexts(all)) {
          const item = JSON.parse(text) as FeedItem;
          if (item.deleted === true) continue;
          assert.ok(text.endsWith(',"deleted":false}'), text);
          assert.deepEqual(Object.keys(item), [...MEAL_FIELDS, 'deleted']);
        }
        assert.equal(itemTexts(all)[4], `{"id":"m2","modifiedAt":"${at(T0 + 5)}","deleted":true}`);
      });
    });

    test('a page of thousands of meals comes back in feed order, byte for byte the stored JSON joined by commas', async () => {
      await withStore(options, async (storage) => {
        // Ids out of byte order, so that only (modifiedAt, id) order can give the expected list.
        const meals = Array.from({ length: 3000 }, (_, i) => meal(`id-${(i * 7919) % 3000}`));
        assert.equal((await storage.writes.upsertMeals('big', meals, T0)).ok, true);
        const page = await feed(storage, { userId: 'big', limit: 5000 });
        const items = itemTexts(page).map((text) => JSON.parse(text) as FeedItem);
        assert.deepEqual(
          items.map((item) => item.id),
          meals.map((meal) => meal.id),
        );
        for (let i = 1; i < items.length; i += 1) {
          assert.ok(String(items[i - 1]?.modifiedAt) < String(items[i]?.modifiedAt), `order broken at ${i}`);
        }
        assert.equal(page.items.toString('utf8'), itemTexts(page).join(','));
      });
    });

    test('pages of limit items report hasMore and the last position, and paging by it misses nothing', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        const seen: string[] = [];
        const pages: Array<[number, boolean]> = [];
        let after: FeedPosition | undefined;
        for (;;) {
          const page = await feed(storage, { userId: 'u1', includeDeleted: true, limit: 2, after });
          const texts = itemTexts(page);
          pages.push([page.count, page.hasMore]);
          for (const text of texts) seen.push((JSON.parse(text) as FeedItem).id);
          if (page.last !== undefined) {
            const lastItem = JSON.parse(texts.at(-1) ?? '{}') as FeedItem;
            assert.deepEqual(page.last, { modifiedAt: Date.parse(lastItem.modifiedAt), id: lastItem.id });
            after = page.last;
          }
          if (!page.hasMore) break;
        }
        assert.deepEqual(pages, [
          [2, true],
          [2, true],
          [1, false],
        ]);
        assert.deepEqual(seen, ['m1', 'm3', 'm4', 'm5', 'm2']);
      });
    });

    test('a page that ends exactly at the last item has hasMore false; an empty page has no last position', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        const full = await feed(storage, { userId: 'u1', limit: 4 });
        assert.equal(full.count, 4);
        assert.equal(full.hasMore, false);
        const empty = await feed(storage, { userId: 'u1', after: full.last });
        const none = {
          items: Buffer.alloc(0),
          count: 0,
          last: undefined,
          hasMore: false,
          newestChangeAt: undefined,
          liveDigest: EMPTY_DIGEST,
          prunedThrough: undefined,
        };
        // Empty, but the user's clock and digest are still read: m2's deletion at T0 + 5 is the
        // newest change, and four meals are live.
        assert.deepEqual(empty, { ...none, newestChangeAt: T0 + 5, liveDigest: full.liveDigest });
        assert.equal(full.liveDigest?.count, 4);
        assert.deepEqual(await feed(storage, { userId: 'nobody' }), none);
        assert.deepEqual(await feed(storage, { userId: 'nobody', includeDeleted: true }), none);
      });
    });

    test('a change made while a client pages shows up after its cursor, so resuming sees it', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        const first = await feed(storage, { userId: 'u1', includeDeleted: true, limit: 2 });
        await storage.writes.upsertMeals('u1', [meal('m1', { title: 'changed' })], T0);
        await storage.writes.deleteMeal('u1', 'm3', T0);
        const rest = await feedItems(storage, { userId: 'u1', includeDeleted: true, after: first.last });
        assert.deepEqual(
          rest.map((item) => [item.id, item.deleted]),
          [
            ['m4', false],
            ['m5', false],
            ['m2', true],
            ['m1', false],
            ['m3', true],
          ],
        );
      });
    });

    test('the feed is in (modifiedAt, id) order with one change per millisecond per user', async () => {
      await withStore(options, async (storage) => {
        const ids = Array.from({ length: 200 }, () => randomId('m_'));
        await storage.writes.upsertMeals(
          'u1',
          ids.slice(0, 100).map((id) => meal(id)),
          T0,
        );
        await storage.writes.upsertMeals(
          'u1',
          ids.slice(100).map((id) => meal(id)),
          T0,
        );
        await storage.writes.upsertMeals(
          'u1',
          ids.slice(50, 60).map((id) => meal(id, { title: 'changed' })),
          T0,
        );
        const items = await feedItems(storage, { userId: 'u1' });
        assert.equal(items.length, 200);
        const times = items.map((item) => Date.parse(item.modifiedAt));
        for (let i = 1; i < times.length; i += 1) assert.ok(times[i - 1]! < times[i]!, `item ${i}`);
        assert.deepEqual(
          items.slice(-10).map((item) => item.id),
          ids.slice(50, 60),
        );
      });
    });

    test("every page carries the user's newest change of any kind, wherever the page is and whatever it holds", async () => {
      await withStore(options, async (storage) => {
        assert.equal((await feed(storage, { userId: 'u1' })).newestChangeAt, undefined, 'no change yet');
        await storage.writes.upsertMeals('u1', [meal('m1'), meal('m2'), meal('m3')], T0);
        await storage.writes.upsertMeals('u2', [meal('other')], T0 + 1000);
        const pages = [
          await feed(storage, { userId: 'u1', limit: 1 }),
          await feed(storage, { userId: 'u1', from: T0 + 1, limit: 1 }),
          await feed(storage, { userId: 'u1', after: { modifiedAt: T0 + 2, id: 'm3' } }),
          await feed(storage, { userId: 'u1', includeDeleted: true, limit: 1 }),
          await feed(storage, { userId: 'u1', includeDeleted: true, after: { modifiedAt: T0 + 2, id: 'm3' } }),
        ];
        assert.deepEqual(
          pages.map((page) => page.newestChangeAt),
          pages.map(() => T0 + 2),
        );
        // A deletion is a change; an upsert of equal meals is none; the clock outlives pruning.
        await storage.writes.deleteMeal('u1', 'm1', T0);
        assert.equal((await feed(storage, { userId: 'u1' })).newestChangeAt, T0 + 3);
        await storage.writes.upsertMeals('u1', [meal('m2')], T0 + 50);
        assert.equal((await feed(storage, { userId: 'u1', includeDeleted: true })).newestChangeAt, T0 + 3);
        assert.equal(await storage.writes.pruneTombstones(T0 + 10), 1);
        assert.equal((await feed(storage, { userId: 'u1', includeDeleted: true })).newestChangeAt, T0 + 3);
        assert.equal((await feed(storage, { userId: 'u2' })).newestChangeAt, T0 + 1000);
      });
    });

    test("a page's newest change is of its own snapshot: every change committed after it has a later modifiedAt, so following from it + 1 ms misses none", async () => {
      await withStore(options, async (storage, location) => {
        const second = await openStorage(location);
        try {
          const ids = Array.from({ length: 30 }, (_, i) => `c${i}`);
          await storage.writes.upsertMeals(
            'u1',
            ids.slice(0, 10).map((id) => meal(id)),
            Date.now(),
          );
          // Two instances write (creates, changes, deletions), a page read after each write is
          // sent (on PostgreSQL the two race; on SQLite a write is done when its call returns);
          // a writer whose clock lags behind by an hour still gets the user's last modifiedAt + 1 ms.
          const snapshots: { seen: Set<string>; clock: number }[] = [];
          for (const [i, id] of ids.entries()) {
            const store = i % 2 === 0 ? storage : second;
            const now = i % 3 === 0 ? Date.now() - 3_600_000 : Date.now();
            const write =
              i < 10 && i % 2 === 0
                ? store.writes.deleteMeal('u1', id, now)
                : store.writes.upsertMeals('u1', [meal(id)], now);
            const page = await feed(storage, { userId: 'u1', includeDeleted: true, limit: 5000 });
            await write;
            const items = itemTexts(page).map((text) => JSON.parse(text) as FeedItem);
            assert.ok(page.newestChangeAt !== undefined);
            const newest = Math.max(...items.map((item) => Date.parse(item.modifiedAt)));
            assert.equal(page.newestChangeAt, newest, 'the clock is the newest item of the same snapshot');
            snapshots.push({ seen: new Set(items.map((item) => `${item.id}@${item.modifiedAt}`)), clock: newest });
          }
          const final = await feedItems(storage, { userId: 'u1', includeDeleted: true });
          let behind = 0;
          for (const { seen, clock } of snapshots) {
            // What that snapshot did not hold is exactly what a follow from its clock + 1 ms reads.
            const unseen = final.filter((item) => !seen.has(`${item.id}@${item.modifiedAt}`));
            const followed = await feedItems(storage, { userId: 'u1', includeDeleted: true, from: clock + 1 });
            assert.deepEqual(followed, unseen);
            if (unseen.length > 0) behind += 1;
          }
          assert.ok(behind >= snapshots.length / 2, `only ${behind} of ${snapshots.length} pages missed a later write`);
        } finally {
          await second.close();
        }
      });
    });

    test('another user never sees these meals', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        assert.deepEqual(itemTexts(await feed(storage, { userId: 'u2', includeDeleted: true })), []);
      });
    });

    test('exportMeals yields live meals from since (inclusive) in feed order', async () => {
      await withStore(options, async (storage) => {
        await seed(storage);
        const exported: string[] = [];
        for await (const m of storage.feed.exportMeals('u1', T0 + 1)) exported.push(`${m.id}@${m.modifiedAt - T0}`);
        assert.deepEqual(exported, ['m3@2', 'm4@3', 'm5@4']);
      });
    });

    test("a reader following one user's feed while two instances write sees every change exactly once", async () => {
      await withStore(options, async (storage, location) => {
        const second = await openStorage(location);
        try {
          const ids = Array.from({ length: 40 }, (_, i) => `c${i}`);
          let writing = true;
          const writes = Promise.all(
            ids.map((id, i) => (i % 2 === 0 ? storage : second).writes.upsertMeals('u1', [meal(id)], T0)),
          ).finally(() => {
            writing = false;
          });
          const seen: string[] = [];
          let after: FeedPosition | undefined;
          // Page until the writers are done and a page after that comes back empty.
          for (let done = false; !done;) {
            const finished = !writing;
            const page = await feed(storage, { userId: 'u1', after, limit: 3 });
            for (const text of itemTexts(page)) seen.push((JSON.parse(text) as FeedItem).id);
            after = page.last ?? after;
            done = finished && page.count === 0;
          }
          await writes;
          assert.deepEqual([...seen].sort(), [...ids].sort(), 'every change, none twice');
          const items = await feedItems(storage, { userId: 'u1' });
          const times = items.map((item) => Date.parse(item.modifiedAt));
          assert.equal(new Set(times).size, ids.length, 'one modifiedAt per change');
        } finally {
          await second.close();
        }
      });
    });
  });
}
