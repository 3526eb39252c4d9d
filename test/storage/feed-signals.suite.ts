import { plainMeal } from '../support/contract.js';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { EVERY_USER, type FeedWatcher } from '../../src/storage/change-signals.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import type { StorageBackend } from './storage.suite.js';

const T0 = Date.UTC(2025, 5, 10, 12);
/** CONTRACT.md section 2: a held request is answered within 1 s of the commit. */
const SIGNAL_WITHIN_MS = 1_000;
/** How long a test waits to be sure that no signal comes. */
const QUIET_MS = 600;

const meal = plainMeal;

/** A watcher of fixed users that records every signal, with the time it came. */
function recordingWatcher(users: readonly string[]) {
  const interest = new Set(users);
  const signals: { readonly at: number; readonly moved: readonly string[] | 'lost' }[] = [];
  const watcher: FeedWatcher = {
    users: () => interest,
    moved: (userIds) => signals.push({ at: performance.now(), moved: [...userIds] }),
    lost: () => signals.push({ at: performance.now(), moved: 'lost' }),
  };
  return {
    watcher,
    signals,
    /** Ms from `since` until a signal named `userId`; rejects after SIGNAL_WITHIN_MS + 1 s. */
    async movedWithin(userId: string, since: number): Promise<number> {
      const deadline = since + SIGNAL_WITHIN_MS + 1_000;
      for (;;) {
        const hit = signals.find((s) => s.at >= since && s.moved !== 'lost' && s.moved.includes(userId));
        if (hit !== undefined) return hit.at - since;
        if (performance.now() > deadline) assert.fail(`no signal for ${userId}: ${JSON.stringify(signals)}`);
        await sleep(10);
      }
    },
    namedSince(userId: string, since: number): boolean {
      return signals.some((s) => s.at >= since && s.moved !== 'lost' && s.moved.includes(userId));
    },
  };
}

/**
 * Change signals (src/storage/feed-signals.ts), the same promise on every backend: a change
 * committed through this handle or another one on the same store (another process, another
 * instance) names its user within 1 s; a write that changes nothing, and another user's
 * change, name no one else.
 */
export function runFeedSignalsSuite(backend: Pick<StorageBackend, 'name' | 'skip' | 'newLocation'>): void {
  async function withTwoHandles(work: (watching: Storage, writer: Storage) => Promise<void>): Promise<void> {
    const { location, remove } = await backend.newLocation('signals');
    const watching = await openStorage(location);
    const writer = await openStorage(location);
    try {
      await work(watching, writer);
    } finally {
      await writer.close();
      await watching.close();
      await remove();
    }
  }

  describe(`${backend.name} storage: change signals`, { skip: backend.skip ?? false }, () => {
    test('a write through the watching handle names its user within 1 s (upsert, then delete)', async () => {
      await withTwoHandles(async (storage) => {
        const recorder = recordingWatcher(['u1']);
        const watch = storage.signals.watchFeeds(recorder.watcher);
        await watch.ready;
        watch.interested();
        let since = performance.now();
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        assert.ok((await recorder.movedWithin('u1', since)) <= SIGNAL_WITHIN_MS);
        since = performance.now();
        assert.equal(await storage.writes.deleteMeal('u1', 'a', T0), 'deleted');
        assert.ok((await recorder.movedWithin('u1', since)) <= SIGNAL_WITHIN_MS);
        watch.close();
      });
    });

    test('a write through another handle on the same store (another process, another instance) names its user within 1 s', async () => {
      await withTwoHandles(async (storage, writer) => {
        const recorder = recordingWatcher(['u1']);
        const watch = storage.signals.watchFeeds(recorder.watcher);
        await watch.ready;
        watch.interested();
        // Polling backends look a few times a second: let one look pass first.
        await sleep(300);
        for (let round = 0; round < 3; round += 1) {
          const since = performance.now();
          await writer.writes.upsertMeals('u1', [meal(`m${round}`)], T0);
          const ms = await recorder.movedWithin('u1', since);
          assert.ok(ms <= SIGNAL_WITHIN_MS, `signalled after ${Math.round(ms)} ms`);
        }
        const since = performance.now();
        assert.equal(await writer.writes.deleteMeal('u1', 'm0', T0), 'deleted');
        assert.ok((await recorder.movedWithin('u1', since)) <= SIGNAL_WITHIN_MS);
        watch.close();
      });
    });

    test('a watcher of every user hears of a change through another handle within 1 s', async () => {
      await withTwoHandles(async (storage, writer) => {
        const heard: number[] = [];
        const watch = storage.signals.watchFeeds({
          users: () => EVERY_USER,
          moved: () => heard.push(performance.now()),
          lost: () => heard.push(performance.now()),
        });
        await watch.ready;
        watch.interested();
        await sleep(300);
        for (let round = 0; round < 2; round += 1) {
          const since = performance.now();
          await writer.writes.upsertMeals(`u${round}`, [meal(`e${round}`)], T0);
          for (;;) {
            const hit = heard.find((at) => at >= since);
            if (hit !== undefined) {
              assert.ok(hit - since <= SIGNAL_WITHIN_MS, `heard after ${Math.round(hit - since)} ms`);
              break;
            }
            assert.ok(performance.now() - since < SIGNAL_WITHIN_MS + 1_000, 'heard of the change');
            await sleep(10);
          }
        }
        watch.close();
      });
    });

    test('an import names its user within 1 s, through this handle and another; one that changes nothing, or is rolled back, names no one', async () => {
      await withTwoHandles(async (storage, writer) => {
        const recorder = recordingWatcher(['u1']);
        const watch = storage.signals.watchFeeds(recorder.watcher);
        await watch.ready;
        watch.interested();
        // Polling backends look a few times a second: let one look pass first.
        await sleep(300);
        async function* batches(...batchIds: string[][]) {
          for (const ids of batchIds) yield ids.map((id) => meal(id));
        }
        for (const [handle, ids] of [
          [storage, ['a', 'b']],
          [writer, ['c', 'd']],
        ] as const) {
          const since = performance.now();
          assert.equal((await handle.writes.importMeals('u1', batches([ids[0]], [ids[1]]), T0)).ok, true);
          const ms = await recorder.movedWithin('u1', since);
          assert.ok(ms <= SIGNAL_WITHIN_MS, `signalled after ${Math.round(ms)} ms`);
        }
        await writer.writes.upsertMeals('u2', [meal('theirs')], T0);
        await sleep(QUIET_MS);

        const nothing = performance.now();
        // The same meals again: unchanged (CONTRACT.md section 7), through either handle.
        for (const handle of [storage, writer]) {
          assert.deepEqual(await handle.writes.importMeals('u1', batches(['a', 'b'], ['c', 'd']), T0), {
            ok: true,
            created: 0,
            updated: 0,
            unchanged: 4,
          });
        }
        // New meals, then another user's id in a later batch: all rolled back.
        assert.deepEqual(await writer.writes.importMeals('u1', batches(['e'], ['theirs']), T0), {
          ok: false,
          reason: 'foreign_id',
          index: 1,
        });
        await sleep(QUIET_MS);
        assert.equal(recorder.namedSince('u1', nothing), false, JSON.stringify(recorder.signals));
        watch.close();
      });
    });

    test("another user's change never names the watched user; a write that changes nothing names no one", async () => {
      await withTwoHandles(async (storage, writer) => {
        const recorder = recordingWatcher(['u1', 'u2']);
        const watch = storage.signals.watchFeeds(recorder.watcher);
        await watch.ready;
        watch.interested();
        const first = performance.now();
        await writer.writes.upsertMeals('u1', [meal('a')], T0);
        await writer.writes.upsertMeals('u2', [meal('b')], T0);
        await recorder.movedWithin('u2', first);
        await sleep(QUIET_MS);
        const since = performance.now();
        await writer.writes.upsertMeals('u2', [meal('c')], T0);
        await recorder.movedWithin('u2', since);
        await sleep(QUIET_MS);
        assert.equal(recorder.namedSince('u1', since), false, JSON.stringify(recorder.signals));

        // Nothing committed: a second delete, a delete of an unknown meal, another user's meal id.
        const quiet = performance.now();
        await storage.writes.deleteMeal('u1', 'a', T0);
        await recorder.movedWithin('u1', quiet);
        await sleep(QUIET_MS);
        const nothing = performance.now();
        assert.equal(await writer.writes.deleteMeal('u1', 'a', T0), 'already_deleted');
        assert.equal(await writer.writes.deleteMeal('u1', 'nope', T0), 'not_found');
        assert.deepEqual(await writer.writes.upsertMeals('u1', [meal('b')], T0), {
          ok: false,
          reason: 'foreign_id',
          index: 0,
        });
        // A meal saved again unchanged is no change (CONTRACT.md section 7).
        assert.deepEqual(await writer.writes.upsertMeals('u2', [meal('b'), meal('c')], T0), {
          ok: true,
          created: 0,
          updated: 0,
          unchanged: 2,
        });
        await sleep(QUIET_MS);
        assert.equal(recorder.namedSince('u1', nothing), false, JSON.stringify(recorder.signals));
        assert.equal(recorder.namedSince('u2', nothing), false, JSON.stringify(recorder.signals));
        watch.close();
      });
    });
  });
}
