import type { ApiKeyRecord } from '../../src/domain/key-records.js';
import { issueApiKey } from '../../src/keys/issue-api-key.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';

const DAY_MS = 86_400_000;

export interface SeededKey {
  readonly name: string;
  /** Revoked this long ago (ms). */
  readonly revokedAgoMs?: number;
  /** Made long enough ago to have expired by now. */
  readonly expired?: boolean;
  /** Accepted requests per day: days before today (0 is today) → count. */
  readonly requests?: Readonly<Record<number, number>>;
}

/**
 * Keys of `userId` in the store at `db`, written as the server writes them: made by the same
 * code as the page's form, revoked by the store, and their daily counts added as the key-use
 * flush adds them (storage/quota-store.ts recordKeyUse), so the page reads them as it would
 * after real use without a test waiting for 189 requests and a flush.
 */
export async function seedKeys(db: string, userId: string, keys: readonly SeededKey[]): Promise<ApiKeyRecord[]> {
  const storage = await openSqliteStorage(db);
  try {
    const now = Date.now();
    const today = Math.floor(now / DAY_MS);
    const made: ApiKeyRecord[] = [];
    for (const [i, seeded] of keys.entries()) {
      // Made in the order given, a second apart: the page lists the newest first.
      const createdAt = (seeded.expired === true ? now - 3 * DAY_MS : now - 60_000) + i * 1000;
      const issued = await issueApiKey(
        storage.keys,
        { userId, name: seeded.name, lifetimeMs: seeded.expired === true ? DAY_MS : undefined },
        createdAt,
      );
      if (!issued.ok) throw new Error(`could not seed the key ${seeded.name}: ${issued.reason}`);
      let record = issued.record;
      if (seeded.revokedAgoMs !== undefined) {
        record = (await storage.keys.revokeApiKey(record.id, now - seeded.revokedAgoMs)) ?? record;
      }
      const days = Object.entries(seeded.requests ?? {});
      if (days.length > 0) {
        await storage.quota.recordKeyUse({
          lastUsed: new Map([[record.id, now - 1000]]),
          requests: days.map(([ago, requests]) => ({
            keyId: record.id,
            day: today - Number(ago),
            requests,
          })),
        });
      }
      made.push(record);
    }
    return made;
  } finally {
    await storage.close();
  }
}
