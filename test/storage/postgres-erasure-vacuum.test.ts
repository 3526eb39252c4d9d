import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { startErasureVacuum } from '../../src/serve/erasure-vacuum.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { adminClient, newPostgresSchema, postgresSkipReason } from '../support/postgres.js';
import { meal, T0 } from '../support/store-fixtures.js';
import { waitFor } from '../support/wait-for.js';

// On PostgreSQL a DELETE leaves the rows' bytes in the tables' pages until a VACUUM frees them:
// an erasure leaves one due, and a serving instance runs it within a minute, one instance at a
// time (docs/operations.md#erasure-and-backups).
const skip = await postgresSkipReason();

/** When each of the schema's tables was last vacuumed by hand (pg_stat_user_tables), by name. */
async function lastVacuums(schema: string): Promise<Map<string, Date | null>> {
  const admin = adminClient();
  try {
    const rows = await admin<{ relname: string; last_vacuum: Date | null }[]>`
      SELECT relname, last_vacuum FROM pg_stat_user_tables WHERE schemaname = ${schema}`;
    return new Map(rows.map((row) => [row.relname, row.last_vacuum]));
  } finally {
    await admin.end();
  }
}

async function vacuumsDue(schema: string): Promise<number> {
  const admin = adminClient();
  try {
    const [row] = await admin.unsafe<{ due: number }[]>(`SELECT count(*)::int AS due FROM ${schema}.erasure_vacuum`);
    return row?.due ?? 0;
  } finally {
    await admin.end();
  }
}

describe('PostgreSQL: the vacuum after an erasure', { skip: skip ?? false }, () => {
  test('none is due before an erasure; after one, one run vacuums every table a user lives in, once', async () => {
    const store = await newPostgresSchema('vacuum');
    const schema = new URL(store.url).searchParams.get('search_path') ?? '';
    const storage = await openStorage(store.url);
    try {
      assert.equal(await storage.erasure.vacuumErased(T0), false, 'nothing erased, nothing due');
      await storage.writes.upsertMeals('leaver', [meal('a'), meal('b')], T0);
      await storage.erasure.eraseUser('leaver', T0 + 1);

      assert.equal(await storage.erasure.vacuumErased(T0 + 2), true);
      const tables = ['meals', 'user_clocks', 'api_keys', 'app_sessions', 'webhook_endpoints', 'webhook_events'];
      // The statistics are published within a second of the statement.
      await waitFor(
        'every table vacuumed',
        async () => {
          const vacuumed = await lastVacuums(schema);
          return tables.every((table) => vacuumed.get(table) instanceof Date);
        },
        5_000,
      );
      assert.equal(await storage.erasure.vacuumErased(T0 + 3), false, 'done: not due again');
    } finally {
      await storage.close();
      await store.remove();
    }
  });

  test("a serving instance's look runs the vacuum an erasure by a command left due", async () => {
    const store = await newPostgresSchema('vacuum_serve');
    const schema = new URL(store.url).searchParams.get('search_path') ?? '';
    const command = await openStorage(store.url);
    const serving = await openStorage(store.url);
    const stop = await startErasureVacuum(serving, pino({ level: 'silent' }), 100);
    try {
      assert.equal((await lastVacuums(schema)).get('meals') ?? null, null);
      await command.writes.upsertMeals('leaver', [meal('a')], T0);
      await command.erasure.eraseUser('leaver', Date.now());
      await waitFor('the vacuum', async () => (await lastVacuums(schema)).get('meals') instanceof Date, 5_000);
      await waitFor('no vacuum due any more', async () => (await vacuumsDue(schema)) === 0, 5_000);
    } finally {
      stop();
      await Promise.all([command.close(), serving.close()]);
      await store.remove();
    }
  });
});
