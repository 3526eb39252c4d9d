import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, statfsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';
import { startImport, writeMealsFile } from '../support/large-import.js';
import { newPostgresDatabase, postgresSkipReason } from '../support/postgres.js';
import { privatePostgresSkipReason, startPrivatePostgres } from '../support/private-postgres.js';
import { makeMeal, newUserId } from '../support/server.js';
import { makeTempDir, runCli } from './cli-harness.js';

/**
 * An import is one transaction (docs/cli.md#all-or-nothing-by-line: nothing of the file is written
 * when a record is bad): killed with SIGKILL halfway, or stopped by a full disk, it must leave the
 * store as it was (docs/reliability.md#faults).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the store holds for a user, as `meals export` writes it (JSON Lines). */
async function exported(db: string, userId: string): Promise<string> {
  const result = await runCli(['meals', 'export', '--user', userId, '--format', 'jsonl', '--db', db]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

/** A store holding one user's 50 meals, and a 200,000-meal file for another user. */
async function prepare(db: string, dir: string): Promise<{ kept: string; before: string; file: string }> {
  const kept = newUserId('kept');
  const records = Array.from({ length: 50 }, () => JSON.stringify(makeMeal())).join('\n');
  const seeded = await runCli(['meals', 'import', '--user', kept, '-', '--format', 'jsonl', '--db', db], {
    input: `${records}\n`,
  });
  assert.equal(seeded.code, 0, seeded.stderr);
  const file = path.join(dir, 'large.jsonl');
  await writeMealsFile(file, 200_000, `fault_${process.pid}`);
  return { kept, before: await exported(db, kept), file };
}

/** Waits until `ready()` or the deadline; true when ready. */
async function waitFor(ready: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (await ready()) return true;
    await sleep(20);
  }
  return false;
}

function walBytes(db: string): number {
  return existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
}

function integrity(db: string): string {
  const sqlite = new BetterSqlite3(db, { readonly: true });
  try {
    return String(sqlite.pragma('integrity_check', { simple: true }));
  } finally {
    sqlite.close();
  }
}

describe('an import killed with SIGKILL halfway', () => {
  test('on SQLite leaves the store as it was, intact and usable', { timeout: 180_000 }, async () => {
    const temp = makeTempDir();
    try {
      const db = path.join(temp.dir, 'store.db');
      const { kept, before, file } = await prepare(db, temp.dir);
      const walBefore = walBytes(db);
      const importer = newUserId('killed');
      const importing = startImport(db, importer, file);
      // Its transaction is writing once the write-ahead log grows by megabytes.
      const writing = await waitFor(() => walBytes(db) > walBefore + 8 * 1024 * 1024, 60_000);
      importing.child.kill('SIGKILL');
      assert.equal(await importing.exited, null, 'killed, not finished');
      assert.ok(writing, 'the import was killed while writing');

      assert.equal(integrity(db), 'ok');
      assert.equal(await exported(db, importer), '', 'nothing of the killed import');
      assert.equal(await exported(db, kept), before, 'the other meals unchanged');
      const again = await runCli(['meals', 'import', '--user', importer, '-', '--format', 'jsonl', '--db', db], {
        input: `${JSON.stringify(makeMeal())}\n`,
      });
      assert.equal(again.code, 0, `the store is usable: ${again.stderr}`);
    } finally {
      temp.remove();
    }
  });

  test('on PostgreSQL leaves the store as it was', { timeout: 180_000 }, async (t) => {
    const skip = await postgresSkipReason();
    if (skip !== undefined) {
      t.skip(skip);
      return;
    }
    const temp = makeTempDir();
    const store = await newPostgresDatabase('killed');
    const sql = postgres(store.url, { max: 1, onnotice: () => undefined });
    try {
      const { kept, before, file } = await prepare(store.url, temp.dir);
      const importer = newUserId('killed');
      const importing = startImport(store.url, importer, file);
      // Its transaction is writing once it holds a transaction id (a write has happened).
      const writing = await waitFor(async () => {
        const [row] = await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()`;
        return (row?.n ?? 0) > 0;
      }, 60_000);
      await sleep(500);
      importing.child.kill('SIGKILL');
      assert.equal(await importing.exited, null, 'killed, not finished');
      assert.ok(writing, 'the import was killed while writing');

      assert.equal(await exported(store.url, importer), '', 'nothing of the killed import');
      assert.equal(await exported(store.url, kept), before, 'the other meals unchanged');
    } finally {
      await sql.end({ timeout: 1 });
      await store.remove();
      temp.remove();
    }
  });
});

/** Mounts a tmpfs of `megabytes` on `dir`; undefined when it cannot (not root, no mount). */
function mountSmallDisk(dir: string, megabytes: number): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `cannot mount a small tmpfs to fill (${(error as Error).message.split('\n')[0]}): needs root`;
  }
}

/**
 * The tablespace's disk: an empty store with the 50 meals takes about 2.5 MB of it, the
 * 200,000-meal import about 105 MB more (measured on PostgreSQL 15).
 */
const POSTGRES_DISK_MB = 16;

function usedMegabytes(dir: string): number {
  const disk = statfsSync(dir);
  return ((disk.blocks - disk.bfree) * disk.bsize) / (1024 * 1024);
}

describe('an import that fills the disk', () => {
  test('on SQLite fails with one line and leaves the store as it was, intact', { timeout: 180_000 }, async (t) => {
    const temp = makeTempDir();
    const disk = path.join(temp.dir, 'disk');
    execFileSync('mkdir', [disk]);
    const skip = mountSmallDisk(disk, 24);
    if (skip !== undefined) {
      temp.remove();
      t.skip(skip);
      return;
    }
    try {
      const db = path.join(disk, 'store.db');
      const { kept, before, file } = await prepare(db, temp.dir);
      const importer = newUserId('full');
      const importing = startImport(db, importer, file);
      const code = await importing.exited;
      const stderr = importing.stderr();
      assert.notEqual(code, 0, 'the import fails');
      assert.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr}`);
      assert.match(stderr, /Storage is full: no space is left on its disk\./, 'it says the disk is full');
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');

      assert.equal(integrity(db), 'ok');
      assert.equal(await exported(db, importer), '', 'nothing of the failed import');
      assert.equal(await exported(db, kept), before, 'the other meals unchanged');
      console.log(`a 200,000-meal import on a 24 MB disk: exit ${code}, "${stderr.trim()}"`);
    } finally {
      execFileSync('umount', [disk]);
      temp.remove();
    }
  });

  test('on PostgreSQL fails with one line and leaves the store as it was', { timeout: 180_000 }, async (t) => {
    // A cluster of our own: the machine's shared server must never have its disk filled.
    const skip = privatePostgresSkipReason();
    if (skip !== undefined) {
      t.skip(skip);
      return;
    }
    const temp = makeTempDir();
    const disk = path.join(temp.dir, 'disk');
    execFileSync('mkdir', [disk]);
    const unmountable = mountSmallDisk(disk, POSTGRES_DISK_MB);
    if (unmountable !== undefined) {
      temp.remove();
      t.skip(unmountable);
      return;
    }
    try {
      const cluster = await startPrivatePostgres();
      try {
        // The store's tables and indexes live on the small disk; the WAL stays on the
        // regular one, so a full disk is an ERROR (53100) for the import, not a PANIC.
        cluster.own(temp.dir);
        cluster.own(disk);
        const admin = postgres(cluster.url(), { max: 1, onnotice: () => undefined });
        try {
          await admin.unsafe(`CREATE TABLESPACE small_disk LOCATION '${disk}'`);
          await admin.unsafe('CREATE DATABASE store TABLESPACE small_disk');
        } finally {
          await admin.end({ timeout: 1 });
        }
        const db = cluster.url('store');
        const { kept, before, file } = await prepare(db, temp.dir);
        const usedBefore = usedMegabytes(disk);
        const importer = newUserId('full');
        const importing = startImport(db, importer, file);
        const code = await importing.exited;
        const stderr = importing.stderr();
        assert.match(cluster.log(), /No space left on device/, 'the import filled the disk');
        assert.notEqual(code, 0, 'the import fails');
        assert.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr}`);
        assert.match(stderr, /Storage is full: no space is left on its disk\./, 'it says the disk is full');
        assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');

        assert.equal(await exported(db, importer), '', 'nothing of the failed import');
        assert.equal(await exported(db, kept), before, 'the other meals unchanged');
        console.log(
          `a 200,000-meal import into a PostgreSQL tablespace on a ${POSTGRES_DISK_MB} MB disk ` +
            `(${usedBefore.toFixed(1)} MB used before): exit ${code}, "${stderr.trim()}"`,
        );
      } finally {
        await cluster.close();
      }
    } finally {
      execFileSync('umount', [disk]);
      temp.remove();
    }
  });
});
