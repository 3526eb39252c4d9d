import { parseDuration } from '../../src/domain/duration.js';
import { tombstonePruneCutoff } from '../../src/domain/tombstone-retention.js';
import type { MealInput } from '../../src/meal-host/meal-host-types.js';
import { createMealHost } from '../../src/meal-host/meal-host.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import type { ServedApp } from './server.js';

/** What a test changes a served store with, beside the API it asks. */
export type StoreWriter = Pick<ServedApp, 'createKey' | 'importMeals' | 'deleteMeal' | 'pruneTombstones' | 'loginLink'>;

/**
 * The store changed as the app's back end changes it, through `meal-export/host` in the test's
 * process (docs/app.md#the-back-end-meal-exporthost), with the answers of the commands the
 * tests once ran for it (`keys create`, `meals import`, `meals delete`, `meals prune`,
 * `users login-link`, each a process of 0.4 s). The commands themselves are tested in test/cli/.
 */
export function storeWriter(storage: Storage): StoreWriter {
  const host = createMealHost(storage);
  return {
    // The whole of what `keys create --json` says (name, createdAt, expiresAt), as some tests read it.
    createKey: (userId, extra = []) => host.createKey(userId, keyOptionsOf(extra)),
    async importMeals(userId, meals) {
      const done = await host.upsertMeals(userId, meals as readonly MealInput[]);
      return { imported: done.ids.length, created: done.created, updated: done.updated, unchanged: done.unchanged };
    },
    async deleteMeal(userId, mealId) {
      const outcome = await host.deleteMeal(userId, mealId);
      if (outcome !== 'deleted' && outcome !== 'already_deleted') throw new Error(`meal ${mealId}: ${outcome}`);
      return { id: mealId, deleted: true };
    },
    async pruneTombstones(tombstoneDays) {
      // 0 days: every tombstone there is. Older than now would spare one made in this very
      // millisecond, or a few ahead of it on the user's clock (docs/api.md#the-call), which the
      // command, started 0.4 s after the write, never met.
      const before = tombstoneDays === 0 ? Number.MAX_SAFE_INTEGER : tombstonePruneCutoff(Date.now(), tombstoneDays);
      return { pruned: await storage.writes.pruneTombstones(before) };
    },
    async loginLink(userId, publicUrl) {
      return (await host.createLoginLink(userId, { publicUrl })).url;
    },
  };
}

/**
 * A StoreWriter on the store at `location` (a SQLite file or a postgres:// URL), opened at its
 * first use (after the server made the store) and closed by close(): a writer in another
 * process than the server's, as the app's back end is.
 */
export function lazyStoreWriter(location: string): StoreWriter & { close(): Promise<void> } {
  let opened: Promise<{ storage: Storage; writer: StoreWriter }> | undefined;
  const writer = () => {
    opened ??= openStorage(location, { longLived: true }).then((storage) => ({
      storage,
      writer: storeWriter(storage),
    }));
    return opened.then((open) => open.writer);
  };
  return {
    createKey: async (userId, extra) => (await writer()).createKey(userId, extra),
    importMeals: async (userId, meals) => (await writer()).importMeals(userId, meals),
    deleteMeal: async (userId, mealId) => (await writer()).deleteMeal(userId, mealId),
    pruneTombstones: async (days) => (await writer()).pruneTombstones(days),
    loginLink: async (userId, publicUrl) => (await writer()).loginLink(userId, publicUrl),
    async close() {
      const open = await opened;
      opened = undefined;
      await open?.storage.close();
    },
  };
}

/** `keys create`'s `--name` and `--expires-in`, the ones tests give, as meal-export/host takes them. */
function keyOptionsOf(extra: readonly string[]): { name?: string; expiresIn?: string } {
  const options: { name?: string; expiresIn?: string } = {};
  for (let i = 0; i < extra.length; i += 2) {
    const [flag, value] = [extra[i], extra[i + 1]];
    if (value === undefined) throw new Error(`keys create ${flag}: no value`);
    if (flag === '--name') options.name = value;
    else if (flag === '--expires-in' && parseDuration(value) !== undefined) options.expiresIn = value;
    else throw new Error(`keys create ${flag} ${value}: not one the tests' store writer takes`);
  }
  return options;
}
