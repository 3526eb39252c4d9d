import { newPostgresDatabase } from './postgres.js';
import { connectTestRedis, deleteKeysUnder, TEST_REDIS_URL, uniqueTestPrefix } from './redis.js';

/** A fresh PostgreSQL database and Redis prefix for one server started with them (startTestServer's db and redis). */
export interface ScaleOutStore {
  readonly db: string;
  readonly redis: { readonly url: string; readonly prefix: string };
  /** Drops the database and deletes every Redis key under the prefix. */
  remove(): Promise<void>;
}

/** On the test servers, or on the PostgreSQL and Redis given (the soak's `--postgres`, `--redis`). */
export async function newScaleOutStore(
  label: string,
  servers?: { readonly postgresUrl: string; readonly redisUrl: string },
): Promise<ScaleOutStore> {
  const store = await newPostgresDatabase(label, servers?.postgresUrl);
  const redisUrl = servers?.redisUrl ?? TEST_REDIS_URL;
  const prefix = uniqueTestPrefix(label);
  return {
    db: store.url,
    redis: { url: redisUrl, prefix },
    async remove() {
      await store.remove();
      const redis = connectTestRedis(redisUrl);
      try {
        await deleteKeysUnder(redis, prefix);
      } finally {
        await redis.quit();
      }
    },
  };
}
