import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from 'postgres';
import { EVERY_USER, type FeedWatcher } from '../../src/storage/change-signals.js';
import { CHANGE_POLL_MS, createPostgresChangePoll } from '../../src/storage/postgres/postgres-change-poll.js';
import { type MigratedPostgresSchema, newMigratedPostgresSchema, postgresSkipReason } from '../support/postgres.js';

// The change poll (storage/postgres/postgres-change-poll.ts) where a sequence value taken first
// commits last: writers of different users commit in parallel, so the poll must not step past
// a hole it has not waited for. On the machine's PostgreSQL directly: the poll needs no pooler.
const skip = await postgresSkipReason();

describe('PostgreSQL change poll', { skip: skip ?? false }, () => {
  let store: MigratedPostgresSchema;
  let sql: Sql;

  before(async () => {
    store = await newMigratedPostgresSchema('poll', 4);
    sql = store.sql;
    await sql.unsafe(`INSERT INTO user_clocks (user_id) VALUES ('early'), ('late'), ('quiet')`);
  });

  after(async () => {
    await store?.remove();
  });

  function recorder(users: ReadonlySet<string> | typeof EVERY_USER) {
    const moved: { user: string; at: number }[] = [];
    let lost = 0;
    const watcher: FeedWatcher = {
      users: () => users,
      moved: (ids) => {
        for (const user of ids) moved.push({ user, at: performance.now() });
      },
      lost: () => {
        lost += 1;
      },
    };
    return { watcher, moved, lostCount: () => lost };
  }

  const bump = (user: string) =>
    sql.unsafe(`UPDATE user_clocks SET change_seq = nextval('user_clock_changes') WHERE user_id = $1`, [user]);

  test('a value taken before a larger one that committed first is still signalled, within 1 s of its commit', async () => {
    const poll = createPostgresChangePoll(sql);
    const { watcher, moved } = recorder(new Set(['early', 'late']));
    const watch = poll.watch(watcher);
    await watch.ready;
    watch.interested();
    try {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tookFirst = sql.begin(async (tx) => {
        await tx.unsafe(`UPDATE user_clocks SET change_seq = nextval('user_clock_changes') WHERE user_id = 'late'`);
        await held;
      });
      await sleep(50);
      await bump('early');
      await sleep(CHANGE_POLL_MS * 3);
      assert.deepEqual(
        moved.map((m) => m.user),
        ['early'],
      );
      release();
      await tookFirst;
      const committedAt = performance.now();
      while (!moved.some((m) => m.user === 'late') && performance.now() - committedAt < 3_000) await sleep(20);
      const late = moved.find((m) => m.user === 'late');
      assert.ok(late !== undefined, 'the late commit is signalled');
      assert.ok(late.at - committedAt <= 1_000, `${Math.round(late.at - committedAt)} ms after its commit`);
      assert.equal(moved.filter((m) => m.user === 'early').length, 1, 'nothing signalled twice');
    } finally {
      watch.close();
      await poll.close();
    }
  });

  test('a watcher of every user is woken about every second with nothing changed (the outbox alone may have)', async () => {
    const poll = createPostgresChangePoll(sql);
    const { watcher, moved, lostCount } = recorder(EVERY_USER);
    const watch = poll.watch(watcher);
    await watch.ready;
    watch.interested();
    try {
      await sleep(2_600);
      assert.ok(lostCount() >= 2, `woken ${lostCount()} times`);
      assert.deepEqual(moved, []);
    } finally {
      watch.close();
      await poll.close();
    }
  });

  test('the first look once someone watches again names what changed while nobody watched', async () => {
    const poll = createPostgresChangePoll(sql);
    const first = recorder(new Set(['quiet']));
    let watch = poll.watch(first.watcher);
    await watch.ready;
    watch.close();
    await bump('quiet');
    const second = recorder(new Set(['quiet']));
    watch = poll.watch(second.watcher);
    watch.interested();
    try {
      const since = performance.now();
      while (second.moved.length === 0 && performance.now() - since < 3_000) await sleep(20);
      assert.deepEqual(
        second.moved.map((m) => m.user),
        ['quiet'],
      );
    } finally {
      watch.close();
      await poll.close();
    }
  });
});
