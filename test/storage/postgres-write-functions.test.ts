import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import postgres, { type Sql } from 'postgres';
import { formatInstant } from '../../src/domain/instant.js';
import { mealDigestTerm } from '../../src/domain/meals-digest.js';
import { createSeededRandom } from '../../src/domain/seeded-random.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage, StorageOptions } from '../../src/storage/storage.js';
import { countRoundTrips } from '../support/pg-round-trips.js';
import {
  type MigratedPostgresSchema,
  newMigratedPostgresSchema,
  newPostgresSchema,
  postgresSkipReason,
  type TestPostgresStore,
  TEST_PG_URL,
} from '../support/postgres.js';
import { addEndpoint, meal, T0 } from '../support/store-fixtures.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

// The functions of migration 10 (src/storage/postgres/postgres-functions-*.ts) against their
// JS twins, beyond what the shared suites reach: every instant JavaScript can write, the digest
// arithmetic at its edges, the round trips of a save and a delete, and the webhook queueing's
// retry when a test event takes its seq.
const skip = await postgresSkipReason();

const DAY = 86_400_000;
/** JavaScript's dates: ±8.64e15 ms (ECMA-262 TimeClip). */
const MAX_DATE_MS = 8.64e15;
const yearStart = (year: number) => new Date(0).setUTCFullYear(year, 0, 1);

describe('PostgreSQL write functions', { skip: skip ?? false }, () => {
  let store: MigratedPostgresSchema;
  let sql: Sql;
  before(async () => {
    store = await newMigratedPostgresSchema('write_functions', 2);
    sql = store.sql;
  });
  after(async () => {
    await store?.remove();
  });

  test('meal_export_instant writes every instant as formatInstant does: edge years, leap days, before 1970', async () => {
    const edges = [
      0,
      -1,
      1,
      999,
      -1000,
      T0,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(1900, 2, 1),
      Date.UTC(2100, 1, 28, 12),
      yearStart(0),
      yearStart(0) - 1,
      yearStart(1),
      yearStart(100),
      yearStart(9999),
      yearStart(10_000) - 1,
      yearStart(10_000),
      yearStart(-1),
      MAX_DATE_MS,
      -MAX_DATE_MS,
      MAX_DATE_MS - 1,
      -MAX_DATE_MS + 1,
    ];
    const random = createSeededRandom(37);
    // Instants over the whole range, and near now where the clock lives, days apart and ms apart.
    const sampled = Array.from({ length: 4000 }, (_, i) =>
      i % 2 === 0
        ? Math.round((random.next() * 2 - 1) * MAX_DATE_MS)
        : T0 + Math.round((random.next() - 0.5) * 400 * 365 * DAY),
    );
    const all = [...edges, ...sampled];
    const rows = await sql<{ text: string }[]>`
      SELECT meal_export_instant(ms) AS text FROM unnest(${all.map(String)}::bigint[]) WITH ORDINALITY AS t(ms, n) ORDER BY n`;
    const differing = all.flatMap((ms, i) =>
      rows[i]?.text === formatInstant(ms) ? [] : [[ms, formatInstant(ms), rows[i]?.text]],
    );
    assert.deepEqual(differing, []);
  });

  test('an instant beyond JavaScript dates is refused, as toISOString refuses it', async () => {
    assert.throws(() => formatInstant(MAX_DATE_MS + 1), RangeError);
    for (const ms of [MAX_DATE_MS + 1, -MAX_DATE_MS - 1]) {
      await assert.rejects(sql`SELECT meal_export_instant(${String(ms)}::bigint)`, /invalid time value/);
    }
  });

  test('meal_export_digest_term is mealDigestTerm, for ids of any script and instants of any year', async () => {
    const ids = ['a', 'é', '🍕', 'ラーメン-1', 'ü\u0301', '\u{10FFFF}', 'quote " back \\ slash', 'x'.repeat(200)];
    const instants = [T0, 0, -1, yearStart(0), yearStart(10_000)];
    for (const id of ids) {
      for (const ms of instants) {
        const [row] = await sql<{ term: string }[]>`
          SELECT meal_export_digest_term(${id}, meal_export_instant(${String(ms)}::bigint))::text AS term`;
        assert.equal(BigInt(row?.term ?? -1), mealDigestTerm(id, ms), `${id} at ${formatInstant(ms)}`);
      }
    }
  });

  test('meal_export_digest_moved adds modulo 2^128 both ways and keeps 16 bytes', async () => {
    const cases: Array<[string, bigint, string]> = [
      ['00000000000000000000000000000000', -1n, 'ffffffffffffffffffffffffffffffff'],
      ['ffffffffffffffffffffffffffffffff', 1n, '00000000000000000000000000000000'],
      ['7fffffffffffffffffffffffffffffff', 1n, '80000000000000000000000000000000'],
      ['0000000000000000ffffffffffffffff', 1n, '00000000000000010000000000000000'],
      ['00000000000000000000000000000005', -(1n << 129n) - 2n, '00000000000000000000000000000003'],
      ['00000000000000000000000000000000', (1n << 128n) - 1n, 'ffffffffffffffffffffffffffffffff'],
    ];
    for (const [sum, delta, moved] of cases) {
      const [row] = await sql<{ moved: string }[]>`
        SELECT encode(meal_export_digest_moved(decode(${sum}, 'hex'), ${delta.toString()}::numeric), 'hex') AS moved`;
      assert.equal(row?.moved, moved, `${sum} + ${delta}`);
    }
  });
});

/**
 * A store opened through a proxy that counts the round trips its pool makes
 * (test/support/pg-round-trips.ts), as a serving process or `meal-export/host` opens it
 * (named statements), or as a short command does (unnamed ones, as behind a transaction pooler).
 */
async function countedStore(label: string, options: StorageOptions) {
  const store = await newPostgresSchema(label);
  const trips = countRoundTrips();
  const target = new URL(TEST_PG_URL);
  const proxy = await startTcpProxy(
    { host: target.hostname, port: Number(target.port || 5432) },
    { watchClient: () => trips.connection() },
  );
  const through = new URL(store.url);
  through.hostname = proxy.host;
  through.port = String(proxy.port);
  const storage = await openStorage(through.href, options);
  return {
    storage,
    /** The round trips of one write. */
    async tripsOf(write: () => Promise<unknown>): Promise<number> {
      const before = trips.total;
      await write();
      return trips.total - before;
    },
    async close() {
      await storage.close();
      await proxy.close();
      await store.remove();
    },
  };
}

/** Each kind of single-meal write, once, by its round trips. */
async function tripsOfEachWrite(counted: Awaited<ReturnType<typeof countedStore>>) {
  const { storage, tripsOf } = counted;
  return {
    created: await tripsOf(() => storage.writes.saveMeal('u1', meal('a'), T0)),
    updated: await tripsOf(() => storage.writes.saveMeal('u1', meal('a', { title: 'changed' }), T0)),
    unchanged: await tripsOf(() => storage.writes.saveMeal('u1', meal('a', { title: 'changed' }), T0)),
    foreign: await tripsOf(() => storage.writes.saveMeal('u2', meal('a'), T0)),
    deleted: await tripsOf(() => storage.writes.deleteMeal('u1', 'a', T0)),
    notFound: await tripsOf(() => storage.writes.deleteMeal('u1', 'nope', T0)),
  };
}

describe('PostgreSQL single-meal writes: one statement each', { skip: skip ?? false }, () => {
  test('with named statements (a serving process, meal-export/host), a save of every outcome and a delete are one round trip each', async () => {
    const counted = await countedStore('one_trip', { serving: true });
    try {
      // A named statement's first use on a connection describes it: one round trip more, once.
      await counted.storage.writes.saveMeal('u0', meal('warm'), T0);
      await counted.storage.writes.deleteMeal('u0', 'warm', T0);
      assert.deepEqual(await tripsOfEachWrite(counted), {
        created: 1,
        updated: 1,
        unchanged: 1,
        foreign: 1,
        deleted: 1,
        notFound: 1,
      });
    } finally {
      await counted.close();
    }
  });

  test('with unnamed statements (a short command, or behind a transaction pooler), each is two: describe, then run', async () => {
    const counted = await countedStore('two_trips', {});
    try {
      assert.deepEqual(await tripsOfEachWrite(counted), {
        created: 2,
        updated: 2,
        unchanged: 2,
        foreign: 2,
        deleted: 2,
        notFound: 2,
      });
    } finally {
      await counted.close();
    }
  });
});

describe('PostgreSQL single-meal save: a test event that takes its seq', { skip: skip ?? false }, () => {
  let store: TestPostgresStore;
  let storage: Storage;
  let sql: Sql;
  before(async () => {
    store = await newPostgresSchema('seq_race');
    storage = await openStorage(store.url);
    sql = postgres(store.url, { max: 3, onnotice: () => undefined });
  });
  after(async () => {
    await storage?.close();
    await sql?.end();
    await store?.remove();
  });

  test("the save's event is queued again after the test event, in the same statement, and the save counts once", async () => {
    const endpoint = await addEndpoint(storage, 'u1');
    let release: () => void = () => undefined;
    let holder = 0;
    const held = sql.begin(async (tx) => {
      const [row] = await tx<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      holder = row?.pid ?? 0;
      // A test event at seq 1, not committed yet: the save's event meets it in the unique index.
      await tx`INSERT INTO webhook_events (endpoint_id, seq, id, type, attempts, next_attempt_at, created_at)
               VALUES (${endpoint.id}, 1, 'msg_00000000000000000000000000000001', 'webhook.test', 0, ${T0}, ${T0})`;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    while (holder === 0) await sleep(10);
    const saving = storage.writes.saveMeal('u1', meal('a'), T0);
    // The save waits for the holder's row: then the holder commits, and the save's insert fails.
    for (let waited = 0; ; waited += 1) {
      const [row] = await sql<{ waiting: number }[]>`
        SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE ${holder}::int = ANY (pg_blocking_pids(pid))`;
      if ((row?.waiting ?? 0) > 0) break;
      assert.ok(waited < 500, 'the save never waited for the test event');
      await sleep(10);
    }
    release();
    await held;
    assert.deepEqual(await saving, { ok: true, outcome: 'created', modifiedAt: T0 });
    const events = await sql<{ seq: number; type: string; from_at: string | null }[]>`
      SELECT seq, type, from_at::text FROM webhook_events WHERE endpoint_id = ${endpoint.id} ORDER BY seq`;
    assert.deepEqual(
      events.map((event) => [event.seq, event.type, event.from_at]),
      [
        [1, 'webhook.test', null],
        [2, 'meals.changed', String(T0)],
      ],
    );
    const [clock] = await sql<{ live_count: string; last_modified_at: string }[]>`
      SELECT live_count::text, last_modified_at::text FROM user_clocks WHERE user_id = 'u1'`;
    assert.deepEqual({ ...clock }, { live_count: '1', last_modified_at: String(T0) });
  });
});

describe('PostgreSQL single-meal writes: what an answer without a change leaves', { skip: skip ?? false }, () => {
  let store: TestPostgresStore;
  let storage: Storage;
  let sql: Sql;
  before(async () => {
    store = await newPostgresSchema('no_change');
    storage = await openStorage(store.url, { serving: true });
    sql = postgres(store.url, { max: 1, onnotice: () => undefined });
  });
  after(async () => {
    await storage?.close();
    await sql?.end();
    await store?.remove();
  });

  test("a new user's save or delete of another user's id, or a delete of an unknown id, makes no clock row", async () => {
    await storage.writes.saveMeal('owner', meal('theirs'), T0);
    assert.deepEqual(await storage.writes.saveMeal('new1', meal('theirs'), T0), {
      ok: false,
      reason: 'foreign_id',
      index: 0,
    });
    assert.equal(await storage.writes.deleteMeal('new2', 'theirs', T0), 'not_found');
    assert.equal(await storage.writes.deleteMeal('new3', 'theirs', T0, 5), 'foreign_id');
    assert.equal(await storage.writes.deleteMeal('new4', 'nobody', T0), 'not_found');
    const rows = await sql<{ user_id: string }[]>`SELECT user_id FROM user_clocks ORDER BY user_id`;
    assert.deepEqual(
      rows.map((row) => row.user_id),
      ['owner'],
    );
  });

  test("an existing user's foreign id, stale save or unknown id moves no clock and no change sequence", async () => {
    await storage.writes.saveMeal('u1', { ...meal('mine'), sourceVersion: 7 }, T0);
    await storage.writes.saveMeal('other', meal('elsewhere'), T0);
    const clock = async () =>
      (
        await sql<{ at: string; seq: string }[]>`
        SELECT last_modified_at::text AS at, change_seq::text AS seq FROM user_clocks WHERE user_id = 'u1'`
      )[0];
    const before = await clock();
    assert.equal((await storage.writes.saveMeal('u1', meal('elsewhere'), T0 + 10)).ok, false);
    assert.deepEqual(await storage.writes.saveMeal('u1', { ...meal('mine'), sourceVersion: 7 }, T0 + 10), {
      ok: true,
      outcome: 'unchanged',
      modifiedAt: T0,
    });
    assert.equal(await storage.writes.deleteMeal('u1', 'nobody', T0 + 10), 'not_found');
    assert.deepEqual(await clock(), before);
  });
});
