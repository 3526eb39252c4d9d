import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import type { Storage } from '../../src/storage/storage.js';
import { runSharedSuite } from '../support/shared-suite.js';
import {
  addEndpoint,
  DAY_MS,
  deliverDue,
  feed,
  feedItems,
  LEASE_MS,
  meal,
  recordingWatcher,
  SIGNAL_WITHIN_MS,
  type StoreSuiteOptions,
  T0,
  withSecondHandle,
  withStore,
} from '../support/store-fixtures.js';
import { versioned, versionOf } from './source-versions.suite.js';

const USER = 'u1';
const OTHER = 'u2';
/** How long a write that changes nothing is watched for a signal it must not send (as commit-paths.suite.ts). */
const NO_SIGNAL_WITHIN_MS = 300;
/** Rounds of the race: each starts both saves at once, the order alternating. */
const RACE_ROUNDS = 50;

/** What one write did to the user's commit step: the clock, the webhook outbox and the user's watcher. */
async function commitStepOf(storage: Storage, write: () => Promise<void>, expectChange: boolean) {
  await addEndpoint(storage, USER);
  const recorder = recordingWatcher([USER]);
  const watch = storage.signals.watchFeeds(recorder.watcher);
  try {
    await watch.ready;
    watch.interested();
    // What each case starts from: a live meal and a tombstone, version 5 each, the event
    // they queued delivered and their signals let pass.
    await storage.writes.upsertMeals(USER, [versioned('kept', 5), versioned('gone', 5)], T0);
    assert.equal(await storage.writes.deleteMeal(USER, 'gone', T0), 'deleted');
    await storage.writes.upsertMeals(OTHER, [meal('theirs')], T0);
    assert.equal((await deliverDue(storage, T0 + DAY_MS)).length, 1);
    await sleep(NO_SIGNAL_WITHIN_MS);
    const before = await feed(storage, { userId: USER });
    const since = performance.now();
    await write();
    const told = await recorder.toldWithin(USER, since, expectChange ? SIGNAL_WITHIN_MS : NO_SIGNAL_WITHIN_MS);
    const after = await feed(storage, { userId: USER });
    const events = await storage.webhooks.claimDueWebhookEvents(T0 + 2 * DAY_MS, LEASE_MS, 10);
    return {
      clockMoved: after.newestChangeAt !== before.newestChangeAt,
      eventsQueued: events.length,
      watcherTold: told,
      digestKept: isDeepStrictEqual(after.liveDigest, before.liveDigest),
    };
  } finally {
    watch.close();
  }
}

const QUIET = { clockMoved: false, eventsQueued: 0, watcherTold: false, digestKept: true };

/** Writes that change nothing but may record a newer version: none reaches the commit step. */
const QUIET_WRITES: readonly { name: string; write(storage: Storage): Promise<void>; version: number }[] = [
  {
    name: 'an unchanged save with a greater version',
    version: 8,
    async write(storage) {
      const result = await storage.writes.saveMeal(USER, versioned('kept', 8), T0 + 60_000);
      assert.deepEqual(result, { ok: true, outcome: 'unchanged', modifiedAt: T0 });
    },
  },
  {
    name: 'an unchanged upsert with a greater version',
    version: 8,
    async write(storage) {
      const result = await storage.writes.upsertMeals(USER, [versioned('kept', 8)], T0 + 60_000);
      assert.deepEqual(result, { ok: true, created: 0, updated: 0, unchanged: 1, stale: 0 });
    },
  },
  {
    name: 'an unchanged import with a greater version',
    version: 8,
    async write(storage) {
      const result = await storage.writes.importMeals(
        USER,
        (async function* () {
          yield [versioned('kept', 8)];
        })(),
        T0 + 60_000,
      );
      assert.deepEqual(result, { ok: true, created: 0, updated: 0, unchanged: 1, stale: 0 });
    },
  },
  {
    name: 'a stale save',
    version: 5,
    async write(storage) {
      const result = await storage.writes.saveMeal(USER, versioned('kept', 5, { title: 'late' }), T0 + 60_000);
      assert.deepEqual(result, { ok: true, outcome: 'stale', modifiedAt: T0 });
    },
  },
  {
    name: 'a stale delete',
    version: 5,
    async write(storage) {
      assert.equal(await storage.writes.deleteMeal(USER, 'kept', T0 + 60_000, 4), 'stale');
    },
  },
];

/**
 * Deletes carrying a sourceVersion (storage/meal-writes.ts), and which version-only writes
 * reach the one commit step, the same on every backend; and two handles racing saves of one
 * meal end at the greater version whatever the order.
 */
export function runSourceVersionDeletesSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: source versions of deletes, the commit step and races', ({ test }) => {
    test('a delete with a greater version leaves a tombstone keeping it; one not greater is stale', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.saveMeal(USER, versioned('a', 5), T0);
        await storage.writes.saveMeal(USER, versioned('b', 5), T0);
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0, 5), 'stale');
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0, 3), 'stale');
        assert.equal((await storage.feed.getMeal(USER, 'a'))?.deleted, false);
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0, 6), 'deleted');
        assert.deepEqual(await storage.feed.getMeal(USER, 'a'), {
          item: JSON.stringify({ id: 'a', modifiedAt: new Date(T0 + 2).toISOString(), deleted: true }),
          modifiedAt: T0 + 2,
          deleted: true,
          sourceVersion: 6,
        });
        // Without a version the tombstone keeps the meal's.
        assert.equal(await storage.writes.deleteMeal(USER, 'b', T0), 'deleted');
        assert.equal(await versionOf(storage, 'b'), 5);
        assert.equal((await storage.writes.saveMeal(USER, versioned('b', 4), T0)).ok, true);
        assert.equal((await storage.feed.getMeal(USER, 'b'))?.deleted, true, 'an older save stays out');
      });
    });

    test('deleting a tombstone again is already_deleted, recording a greater version; an older one is stale, the same one a retry', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.saveMeal(USER, versioned('a', 5), T0);
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0), 'deleted');
        const before = await feed(storage, { userId: USER, includeDeleted: true });
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0 + 9, 4), 'stale');
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0 + 9, 5), 'already_deleted', 'the tombstone holds 5');
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0 + 9, 9), 'already_deleted');
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0 + 9), 'already_deleted');
        assert.deepEqual(await feed(storage, { userId: USER, includeDeleted: true }), before, 'no change');
        assert.equal(await versionOf(storage, 'a'), 9);
        // A retry of the delete at 9: done already, not overtaken.
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0 + 9, 9), 'already_deleted');
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0 + 9, 8), 'stale');
        assert.equal(await versionOf(storage, 'a'), 9);
      });
    });

    test("a delete with a version of an id no user has records a tombstone, a change; another user's id is foreign_id", async () => {
      await withStore(options, async (storage) => {
        const step = await commitStepOf(
          storage,
          async () => assert.equal(await storage.writes.deleteMeal(USER, 'ahead', T0 + 60_000, 7), 'deleted'),
          true,
        );
        assert.deepEqual(step, { clockMoved: true, eventsQueued: 1, watcherTold: true, digestKept: true });
        const items = await feedItems(storage, { userId: USER, includeDeleted: true });
        assert.deepEqual(items.at(-1), { id: 'ahead', modifiedAt: new Date(T0 + 60_000).toISOString(), deleted: true });
        assert.equal((await feed(storage, { userId: USER })).newestChangeAt, T0 + 60_000);
        assert.equal(await versionOf(storage, 'ahead'), 7);
        // The save it overtook arrives late: stale. A newer one brings the meal to life.
        const late = await storage.writes.saveMeal(USER, versioned('ahead', 6), T0);
        assert.deepEqual(late, { ok: true, outcome: 'stale', modifiedAt: T0 + 60_000 });
        const newer = await storage.writes.saveMeal(USER, versioned('ahead', 8), T0);
        assert.deepEqual(newer, { ok: true, outcome: 'updated', modifiedAt: T0 + 60_001 });

        assert.equal(await storage.writes.deleteMeal(USER, 'theirs', T0, 1), 'foreign_id');
        assert.equal(await storage.writes.deleteMeal(USER, 'theirs', T0), 'not_found');
        assert.equal(await storage.writes.deleteMeal(USER, 'nobody', T0), 'not_found');
        assert.equal(await storage.feed.getMeal(USER, 'nobody'), undefined);
        assert.equal(await versionOf(storage, 'theirs', OTHER), null);
      });
    });

    for (const path of QUIET_WRITES) {
      test(`${path.name} moves no clock, queues no webhook event and tells no watcher`, async () => {
        await withStore(options, async (storage) => {
          assert.deepEqual(await commitStepOf(storage, () => path.write(storage), false), QUIET);
          assert.equal(await versionOf(storage, 'kept'), path.version);
          assert.equal((await storage.feed.getMeal(USER, 'kept'))?.deleted, false);
        });
      });
    }

    test('deleting a tombstone with a greater version moves no clock, queues no webhook event and tells no watcher', async () => {
      await withStore(options, async (storage) => {
        const write = async () => assert.equal(await storage.writes.deleteMeal(USER, 'gone', T0, 9), 'already_deleted');
        assert.deepEqual(await commitStepOf(storage, write, false), QUIET);
        assert.equal(await versionOf(storage, 'gone'), 9);
      });
    });

    test(`two handles racing saves of one meal with versions 5 and 6 end at 6, ${RACE_ROUNDS} rounds in both orders`, async () => {
      await withStore(options, async (first, location) => {
        await withSecondHandle(location, async (second) => {
          for (let round = 0; round < RACE_ROUNDS; round += 1) {
            const id = `race${round}`;
            // The rounds go through every mix: the meal new or there already (a creation or an
            // update), which handle saves 5, and which save is started first.
            if (round % 2 === 1) await first.writes.saveMeal(USER, versioned(id, 1), T0);
            const [older, newer] = round % 4 < 2 ? [first, second] : [second, first];
            const five = () => older.writes.saveMeal(USER, versioned(id, 5, { title: 'five' }), T0);
            const six = () => newer.writes.saveMeal(USER, versioned(id, 6, { title: 'six' }), T0);
            const started = round % 8 < 4 ? [five(), six()] : [six(), five()].reverse();
            const outcomes = (await Promise.all(started)).map((result) => (result.ok ? result.outcome : result.reason));
            const stored = await first.feed.getMeal(USER, id);
            assert.equal(stored?.sourceVersion, 6, `round ${round}: ${outcomes.join(', ')}`);
            assert.equal((JSON.parse(stored?.item ?? '{}') as { title?: string }).title, 'six', `round ${round}`);
          }
        });
      });
    });
  });
}
