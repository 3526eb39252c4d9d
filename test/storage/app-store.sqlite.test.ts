import path from 'node:path';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { makeTempDir } from '../support/project.js';
import { runAppStoreSuite } from './app-store.suite.js';

runAppStoreSuite('SQLite', async () => {
  const temp = makeTempDir('app-store');
  const storage = await openSqliteStorage(path.join(temp.dir, 'store.db'));
  return {
    storage,
    async dispose() {
      await storage.close();
      temp.remove();
    },
  };
});
