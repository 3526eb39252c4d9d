import { openStorage } from '../../src/storage/open-storage.js';

/**
 * Run as a child process by the storage suite: opens (and so migrates) the store named by
 * argv[2] (a SQLite file or a postgres:// URL) and prints its cursor secret in hex, so the
 * test can check that processes starting at once all succeed and agree on one secret.
 */
const location = process.argv[2];
if (location === undefined) throw new Error('usage: open-store-child.ts LOCATION');
const storage = await openStorage(location);
try {
  process.stdout.write((await storage.settings.cursorSecret()).toString('hex'));
} finally {
  await storage.close();
}
