import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MealContent } from '../../src/domain/meal.js';
import type { Storage } from '../../src/storage/storage.js';
import { runSharedSuite } from '../support/shared-suite.js';
import {
  addEndpoint,
  DAY_MS,
  deliverDue,
  feed,
  LEASE_MS,
  meal,
  recordingWatcher,
  SIGNAL_WITHIN_MS,
  type StoreSuiteOptions,
  span,
  T0,
  withStore,
} from '../support/store-fixtures.js';

const USER = 'u1';
const OTHER = 'u2';
/** The write's wall clock: ahead of everything prepared, so a change's clock value is known. */
const NOW = T0 + 1_000;
/**
 * How long a write that changed nothing is watched for a signal it must not send. A signal of
 * this handle's own commit comes at once on SQLite and within milliseconds on PostgreSQL (a
 * NOTIFY through the listening connection), so a missing one would show well inside this.
 */
const NO_SIGNAL_WITHIN_MS = 300;

/** One way a write reaches the store, and what it must do there. */
interface WritePath {
  readonly name: string;
  /** The modifiedAt of the first and last change it makes; undefined when it changes nothing. */
  readonly changes: readonly [number, number] | undefined;
  /** Writes, and checks what the write call itself answers. */
  write(storage: Storage): Promise<void>;
}

async function* batches(...list: MealContent[][]): AsyncGenerator<MealContent[]> {
  for (const batch of list) yield batch;
}

const PATHS: readonly WritePath[] = [
  {
    name: 'an import of new and changed meals over two batches',
    changes: [NOW, NOW + 2],
    async write(storage) {
      const result = await storage.writes.importMeals(
        USER,
        batches([meal('i1')], [meal('i2'), meal('kept', { title: 'changed' })]),
        NOW,
      );
      assert.deepEqual(result, { ok: true, created: 2, updated: 1, unchanged: 0, stale: 0 });
    },
  },
  {
    name: 'an upsert of a new meal',
    changes: [NOW, NOW],
    async write(storage) {
      assert.deepEqual(await storage.writes.upsertMeals(USER, [meal('new')], NOW), {
        ok: true,
        created: 1,
        updated: 0,
        unchanged: 0,
        stale: 0,
      });
    },
  },
  {
    name: 'a delete of a live meal',
    changes: [NOW, NOW],
    async write(storage) {
      assert.equal(await storage.writes.deleteMeal(USER, 'kept', NOW), 'deleted');
    },
  },
  {
    name: 'an upsert of a record equal to the live meal',
    changes: undefined,
    async write(storage) {
      assert.deepEqual(await storage.writes.upsertMeals(USER, [meal('kept')], NOW), {
        ok: true,
        created: 0,
        updated: 0,
        unchanged: 1,
        stale: 0,
      });
    },
  },
  {
    name: 'an import of records all equal to the live meals',
    changes: undefined,
    async write(storage) {
      assert.deepEqual(await storage.writes.importMeals(USER, batches([meal('kept')], [meal('kept')]), NOW), {
        ok: true,
        created: 0,
        updated: 0,
        unchanged: 2,
        stale: 0,
      });
    },
  },
  {
    name: 'a second delete of a meal',
    changes: undefined,
    async write(storage) {
      assert.equal(await storage.writes.deleteMeal(USER, 'gone', NOW), 'already_deleted');
    },
  },
  {
    name: 'an import whose batches throw after a first batch, rolled back',
    changes: undefined,
    async write(storage) {
      const bad = new Error('a bad record in the second batch');
      async function* failing(): AsyncGenerator<MealContent[]> {
        yield [meal('r1'), meal('kept', { title: 'changed' })];
        throw bad;
      }
      await assert.rejects(storage.writes.importMeals(USER, failing(), NOW), (error) => error === bad);
    },
  },
  {
    name: "an upsert naming another user's meal",
    changes: undefined,
    async write(storage) {
      assert.deepEqual(await storage.writes.upsertMeals(USER, [meal('n1'), meal('theirs')], NOW), {
        ok: false,
        reason: 'foreign_id',
        index: 1,
      });
    },
  },
];

/**
 * The one commit step of each backend (sqlite-commit.ts, postgres-commit.ts), seen from
 * outside: every write path that changes a user's meals moves the user's clock, queues a
 * webhook event for the user's endpoint and tells the user's watcher, all three; every path
 * that changes nothing does none of them. Each case observes the three together and compares
 * them at once, so a path that does one without the others fails with what it did.
 */
export function runCommitPathsSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: one commit step per write path', ({ test }) => {
    for (const path of PATHS) {
      const does =
        path.changes === undefined
          ? 'moves no clock, queues no webhook event and tells no watcher'
          : "moves the user's clock, queues one webhook event and tells the user's watcher within 1 s, together";
      test(`${path.name} ${does}`, async () => {
        await withStore(options, async (storage) => {
          const endpoint = await addEndpoint(storage, USER);
          const recorder = recordingWatcher([USER]);
          const watch = storage.signals.watchFeeds(recorder.watcher);
          try {
            await watch.ready;
            watch.interested();
            // What every path starts from: a live meal, a tombstone, another user's meal; the
            // event this queued delivered, and its signal heard and let pass.
            const prepared = performance.now();
            await storage.writes.upsertMeals(USER, [meal('kept'), meal('gone')], T0);
            assert.equal(await storage.writes.deleteMeal(USER, 'gone', T0), 'deleted');
            await storage.writes.upsertMeals(OTHER, [meal('theirs')], T0);
            await recorder.toldWithin(USER, prepared, SIGNAL_WITHIN_MS);
            assert.equal((await deliverDue(storage, T0 + DAY_MS)).length, 1);
            await sleep(NO_SIGNAL_WITHIN_MS);
            const clockBefore = (await feed(storage, { userId: USER })).newestChangeAt;
            assert.equal(clockBefore, T0 + 2);

            const since = performance.now();
            await path.write(storage);
            const told = await recorder.toldWithin(
              USER,
              since,
              path.changes === undefined ? NO_SIGNAL_WITHIN_MS : SIGNAL_WITHIN_MS,
            );
            const clockAfter = (await feed(storage, { userId: USER })).newestChangeAt;
            const events = await storage.webhooks.claimDueWebhookEvents(NOW + DAY_MS, LEASE_MS, 10);

            const changed = path.changes !== undefined;
            assert.deepEqual(
              { clockMoved: clockAfter !== clockBefore, eventsQueued: events.length, watcherTold: told },
              { clockMoved: changed, eventsQueued: changed ? 1 : 0, watcherTold: changed },
            );
            if (path.changes !== undefined) {
              // The clock, the event and the feed name the same changes.
              assert.equal(clockAfter, path.changes[1]);
              assert.equal(events[0]?.endpointId, endpoint.id);
              assert.deepEqual(span(events[0]!), path.changes);
            }
          } finally {
            watch.close();
          }
        });
      });
    }
  });
}
