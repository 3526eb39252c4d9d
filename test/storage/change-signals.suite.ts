import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { EVERY_USER } from '../../src/storage/change-signals.js';
import type { Storage } from '../../src/storage/storage.js';
import { runSharedSuite } from '../support/shared-suite.js';
import {
  meal,
  QUIET_MS,
  recordingWatcher,
  SIGNAL_WITHIN_MS,
  type StoreSuiteOptions,
  T0,
  withSecondHandle,
  withStore,
} from '../support/store-fixtures.js';

/** A watching handle and a writing one on the same store (another process, another instance). */
function withTwoHandles(
  options: StoreSuiteOptions,
  work: (watching: Storage, writer: Storage) => Promise<void>,
): Promise<void> {
  return withStore(options, (watching, location) => withSecondHandle(location, (writer) => work(watching, writer)));
}

/**
 * Change signals (storage/change-signals.ts), the same promise on every backend: a change
 * committed through this handle or another one on the same store (another process, another
 * instance) names its user within 1 s; a write that changes nothing, and another user's
 * change, name no one else.
 */
export function runChangeSignalsSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: change signals', ({ test }) => {
    test('a write through the watching handle names its user within 1 s (upsert, then delete)', async () => {
      await withTwoHandles(options, async (storage) => {
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
      await withTwoHandles(options, async (storage, writer) => {
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
      await withTwoHandles(options, async (storage, writer) => {
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
      await withTwoHandles(options, async (storage, writer) => {
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
        // The same meals again: unchanged, through either handle.
        for (const handle of [storage, writer]) {
          assert.deepEqual(await handle.writes.importMeals('u1', batches(['a', 'b'], ['c', 'd']), T0), {
            ok: true,
            created: 0,
            updated: 0,
            unchanged: 4,
            stale: 0,
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
      await withTwoHandles(options, async (storage, writer) => {
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
        // A meal saved again unchanged is no change.
        assert.deepEqual(await writer.writes.upsertMeals('u2', [meal('b'), meal('c')], T0), {
          ok: true,
          created: 0,
          updated: 0,
          unchanged: 2,
          stale: 0,
        });
        await sleep(QUIET_MS);
        assert.equal(recorder.namedSince('u1', nothing), false, JSON.stringify(recorder.signals));
        assert.equal(recorder.namedSince('u2', nothing), false, JSON.stringify(recorder.signals));
        watch.close();
      });
    });
  });
}
