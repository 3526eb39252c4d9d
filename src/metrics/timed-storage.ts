import type { Storage } from '../storage/storage.js';

/** The Storage methods that reach the store (everything but `kind`, and `watchFeeds`, which sets up a watch). */
export type StorageMethod = Exclude<keyof Storage, 'kind' | 'watchFeeds'>;

/** Told how long each storage call took, in seconds, by method. */
export type StorageTimer = (method: StorageMethod, seconds: number) => void;

/** Every method that answers with a promise: all but `exportMeals`, which streams. */
const PROMISE_METHODS = [
  'listFeed',
  'upsertMeals',
  'importMeals',
  'deleteMeal',
  'pruneTombstones',
  'createApiKey',
  'listApiKeys',
  'revokeApiKey',
  'findApiKeysByDigests',
  'recordKeyUse',
  'listKeyRequests',
  'listKeyRequestsSince',
  'pruneKeyRequests',
  'createLoginToken',
  'consumeLoginToken',
  'createSession',
  'findSession',
  'deleteSession',
  'pruneExpiredSignIns',
  'createWebhook',
  'listWebhooks',
  'findWebhook',
  'deleteWebhook',
  'enableWebhook',
  'rotateWebhookSecret',
  'queueWebhookTest',
  'listWebhookAttempts',
  'claimDueWebhookEvents',
  'nextWebhookDueAt',
  'recordWebhookAttempt',
  'webhookBacklog',
  'cursorSecret',
  'recordAppPageOrigin',
  'appPageOrigin',
  'ping',
  'close',
] as const satisfies readonly StorageMethod[];

// A method added to Storage and not listed above fails the type check here.
type Unlisted = Exclude<StorageMethod, (typeof PROMISE_METHODS)[number] | 'exportMeals'>;
const EVERY_METHOD_LISTED: [Unlisted] extends [never] ? true : never = true;
void EVERY_METHOD_LISTED;

type AnyCall = (...args: unknown[]) => Promise<unknown>;

/**
 * A Storage that times every call of the one it wraps, for /metrics' storage query time
 * (CONTRACT.md section 6), whatever the backend. A failed call is timed too: a store that
 * times out shows as slow, not as silent. `exportMeals` is timed from the first read to the
 * last, the whole export.
 */
export function createTimedStorage(storage: Storage, timer: StorageTimer): Storage {
  const timed: Record<string, unknown> = { kind: storage.kind };
  for (const method of PROMISE_METHODS) {
    const call = (storage[method] as AnyCall).bind(storage);
    timed[method] = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        return await call(...args);
      } finally {
        timer(method, (performance.now() - started) / 1000);
      }
    };
  }
  timed.exportMeals = async function* timedExport(userId: string, since: number) {
    const started = performance.now();
    try {
      yield* storage.exportMeals(userId, since);
    } finally {
      timer('exportMeals', (performance.now() - started) / 1000);
    }
  };
  timed.watchFeeds = storage.watchFeeds.bind(storage);
  return timed as unknown as Storage;
}
