import path from 'node:path';
import { redactedUrl } from '../src/config.js';
import { makeTempDir } from '../test/support/project.js';
import { newScaleOutStore } from '../test/support/scale-out-store.js';
import type { SoakOptions } from './options.js';

/** Where the soak's instances keep their meals, and how to take it away again. */
export interface SoakStore {
  /** `SQLite` or `PostgreSQL + Redis`, with where. */
  readonly label: string;
  /** The folder of the instances' certificate (and of the SQLite file). */
  readonly dataDir: string;
  /**
   * The store and Redis as the instances and commands are told them: in the environment, for
   * argv is what `ps` shows every user of the machine and a URL may carry a password.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Flags every instance takes beside the soak's own (the Redis prefix). */
  readonly serveArgs: readonly string[];
  remove(): Promise<void>;
}

/**
 * A SQLite file in a temporary folder; or, with `--postgres` and `--redis`, a database made for
 * this run on that server and a Redis prefix of its own (test/support/scale-out-store.ts), both
 * removed at the end.
 */
export async function createSoakStore(options: SoakOptions): Promise<SoakStore> {
  const folder = makeTempDir('soak');
  if (options.scaleOut === undefined) {
    const db = path.join(folder.dir, 'meal-export.db');
    return {
      label: `SQLite (${db})`,
      dataDir: folder.dir,
      env: { MEAL_EXPORT_DATABASE_URL: db },
      serveArgs: [],
      remove: async () => folder.remove(),
    };
  }
  const store = await newScaleOutStore('soak', options.scaleOut);
  return {
    label: `PostgreSQL (${redactedUrl(store.db)}) + Redis (${redactedUrl(store.redis.url)}, prefix ${store.redis.prefix})`,
    dataDir: folder.dir,
    env: { MEAL_EXPORT_DATABASE_URL: store.db, MEAL_EXPORT_REDIS_URL: store.redis.url },
    serveArgs: ['--redis-prefix', store.redis.prefix],
    async remove() {
      folder.remove();
      await store.remove();
    },
  };
}
