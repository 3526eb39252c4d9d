import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../src/errors.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { cleanEnv, PROJECT_ROOT } from '../support/project.js';
import { runSharedSuite } from '../support/shared-suite.js';
import {
  at,
  feedItems,
  meal,
  type StoreLocation,
  type StoreSuiteOptions,
  T0,
  withStore,
} from '../support/store-fixtures.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'open-store-child.ts');

/** What the opening cases need beyond a fresh store: a place not opened yet, and what was migrated there. */
export interface StoreOpeningSuiteOptions extends StoreSuiteOptions {
  /** A new place for a store that nothing has opened, so nothing has created. */
  newLocation(label: string): Promise<StoreLocation>;
  /** The versions recorded in the store's schema_migrations, in order; rejects when there is no store. */
  appliedMigrations(location: string): Promise<number[]>;
}

/**
 * Opening a store (storage/open-storage.ts), the same on every backend: migrations applied once
 * and safely when processes start at once, `create: never`, and the values every handle shares.
 */
export function runStoreOpeningSuite(options: StoreOpeningSuiteOptions): void {
  runSharedSuite(options, 'storage: opening and migrating', ({ test }) => {
    /** Opens (so migrates) the store in a process of its own; its stdout is the cursor secret in hex. */
    function runChild(location: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', CHILD, location], {
          cwd: PROJECT_ROOT,
          env: cleanEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
        });
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    }

    test('reopening a store keeps its data, applies each migration once and keeps the cursor secret', async () => {
      const { location, remove } = await options.newLocation('reopen');
      try {
        const first = await openStorage(location);
        const secret = await first.settings.cursorSecret();
        assert.equal(secret.length, 32);
        await first.writes.upsertMeals('u1', [meal('a')], T0);
        await first.close();
        const migrations = await options.appliedMigrations(location);
        assert.ok(migrations.length >= 1);

        for (let i = 0; i < 2; i += 1) {
          const again = await openStorage(location);
          assert.deepEqual(await again.settings.cursorSecret(), secret);
          assert.deepEqual(
            (await feedItems(again, { userId: 'u1' })).map((item) => item.id),
            ['a'],
          );
          await again.close();
        }
        assert.deepEqual(await options.appliedMigrations(location), migrations);
      } finally {
        await remove();
      }
    });

    test('create: never refuses a store that does not exist and makes none; the default makes it', async () => {
      const { location, remove } = await options.newLocation('never');
      try {
        await assert.rejects(openStorage(location, { create: 'never' }), (error: unknown) => {
          assert.ok(error instanceof AppError, String(error));
          assert.equal(error.code, 'unavailable');
          assert.match(error.message, /no store there/);
          return true;
        });
        await assert.rejects(options.appliedMigrations(location), 'nothing was created');
        await (await openStorage(location)).close();
        const existing = await openStorage(location, { create: 'never' });
        await existing.close();
        assert.ok((await options.appliedMigrations(location)).length >= 1);
      } finally {
        await remove();
      }
    });

    test('the app page origin: none on a new store, then the last one recorded, for every handle', async () => {
      await withStore(options, async (storage, location) => {
        assert.equal(await storage.settings.appPageOrigin(), undefined);
        await storage.settings.recordAppPageOrigin('https://127.0.0.1:8444');
        await storage.settings.recordAppPageOrigin('https://[::1]:40123');
        const second = await openStorage(location, { create: 'never' });
        try {
          assert.equal(await second.settings.appPageOrigin(), 'https://[::1]:40123');
          await second.settings.recordAppPageOrigin('https://meals.example.com');
          assert.equal(await storage.settings.appPageOrigin(), 'https://meals.example.com');
        } finally {
          await second.close();
        }
        assert.equal((await storage.settings.cursorSecret()).length, 32, 'the cursor secret is untouched');
      });
    });

    test('two handles open on one store at once share the data and the cursor secret', async () => {
      await withStore(options, async (storage, location) => {
        const second = await openStorage(location);
        try {
          assert.deepEqual(await second.settings.cursorSecret(), await storage.settings.cursorSecret());
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          await second.writes.upsertMeals('u1', [meal('b')], T0);
          assert.deepEqual(
            (await feedItems(second, { userId: 'u1' })).map((item) => [item.id, item.modifiedAt]),
            [
              ['a', at(T0)],
              ['b', at(T0 + 1)],
            ],
          );
        } finally {
          await second.close();
        }
      });
    });

    test('two stores have different cursor secrets', async () => {
      await withStore(options, async (a) => {
        await withStore(options, async (b) => {
          assert.notDeepEqual(await a.settings.cursorSecret(), await b.settings.cursorSecret());
        });
      });
    });

    test('four processes opening a new store at once all succeed and agree on one cursor secret', async () => {
      const { location, remove } = await options.newLocation('concurrent');
      try {
        const results = await Promise.all(Array.from({ length: 4 }, () => runChild(location)));
        for (const result of results) assert.equal(result.code, 0, result.stderr);
        const secrets = new Set(results.map((result) => result.stdout));
        assert.equal(secrets.size, 1);
        const storage = await openStorage(location);
        try {
          assert.equal((await storage.settings.cursorSecret()).toString('hex'), [...secrets][0]);
        } finally {
          await storage.close();
        }
        const migrations = await options.appliedMigrations(location);
        assert.deepEqual(migrations, [...new Set(migrations)]);
      } finally {
        await remove();
      }
    });
  });
}
