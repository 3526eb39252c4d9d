import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PROJECT_ROOT } from './project.js';

/** Another process that takes a SQLite store's write lock, holds it `ms`, and lets go. */
export async function holdWriteLock(db: string, ms: number): Promise<{ released: Promise<void> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ['-e', script, db, String(ms)], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  assert.equal(chunk.toString('utf8'), 'locked');
  return { released: once(child, 'close').then(() => undefined) };
}
