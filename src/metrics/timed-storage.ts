import type { Storage } from '../storage/storage.js';

/** The Storage methods that reach the store (everything but `kind`). */
export type StorageMethod = Exclude<keyof Storage, 'kind'>;

/** Told how long each storage call took, in seconds, by method. */
export type StorageTimer = (method: StorageMethod, seconds: number) => void;

/**
 * A Storage that times every call of the one it wraps, for /metrics' storage query time
 * (CONTRACT.md section 6), whatever the backend. A failed call is timed too: a store that
 * times out shows as slow, not as silent. `exportMeals` is timed from the first read to the
 * last, the whole export.
 */
export function createTimedStorage(storage: Storage, timer: StorageTimer): Storage {
  async function timed<T>(method: StorageMethod, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await call();
    } finally {
      timer(method, (performance.now() - started) / 1000);
    }
  }

  async function* timedExport(userId: string, since: number) {
    const started = performance.now();
    try {
      yield* storage.exportMeals(userId, since);
    } finally {
      timer('exportMeals', (performance.now() - started) / 1000);
    }
  }

  return {
    kind: storage.kind,
    listFeed: (query) => timed('listFeed', () => storage.listFeed(query)),
    exportMeals: timedExport,
    upsertMeals: (userId, meals, now) => timed('upsertMeals', () => storage.upsertMeals(userId, meals, now)),
    deleteMeal: (userId, mealId, now) => timed('deleteMeal', () => storage.deleteMeal(userId, mealId, now)),
    pruneTombstones: (before) => timed('pruneTombstones', () => storage.pruneTombstones(before)),
    createApiKey: (key, maxActive, now) => timed('createApiKey', () => storage.createApiKey(key, maxActive, now)),
    listApiKeys: (userId) => timed('listApiKeys', () => storage.listApiKeys(userId)),
    revokeApiKey: (keyId, now) => timed('revokeApiKey', () => storage.revokeApiKey(keyId, now)),
    findApiKeyByDigest: (digest) => timed('findApiKeyByDigest', () => storage.findApiKeyByDigest(digest)),
    recordKeyUse: (lastUsed) => timed('recordKeyUse', () => storage.recordKeyUse(lastUsed)),
    cursorSecret: () => timed('cursorSecret', () => storage.cursorSecret()),
    ping: () => timed('ping', () => storage.ping()),
    close: () => storage.close(),
  };
}
