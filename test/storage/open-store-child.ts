import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';

/**
 * Run as a child process by sqlite-storage.test.ts: opens (and so migrates) the store named by
 * argv[2] and prints its cursor secret in hex, so the test can check that processes starting
 * at once all succeed and agree on one secret.
 */
const file = process.argv[2];
if (file === undefined) throw new Error('usage: open-store-child.ts DB_FILE');
const storage = await openSqliteStorage(file);
try {
  process.stdout.write((await storage.cursorSecret()).toString('hex'));
} finally {
  await storage.close();
}
