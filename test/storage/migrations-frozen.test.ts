import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { Migration } from '../../src/storage/sqlite/migrations.js';
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations.js';
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations.js';

// Released migrations are never edited (storage/sqlite/migrations.ts, storage/postgres/migrations.ts): a store
// that applied one never applies it again, so an edit would leave stores of one version with
// two schemas. The SHA-256 of every migration that has shipped is held here; one edited (or an
// exported constant it is built from, as PostgreSQL's migration 10 is built from the functions'
// SQL) fails this test. A change is a new migration, whose checksum is added here when it ships.
const SQLITE_SHIPPED: Readonly<Record<number, string>> = {
  1: 'ff50ac3a4159691e31319a0154eec64e7d90a8dba47bf02230966023da0a2ded',
  2: 'fd6378cceba051c237ea0e63b3e561e56acdac367d0fd6fad5ea9aaed5a7e500',
  3: '56130a4748399c58af31b09c968d025e2fdefaa762f4929fd6169a81a3388d8c',
  4: '562c55584f452d4df008219c561870ee161f789bf8fd6cdf362fbce59fac0db1',
  5: '18bd36dc771620846f9d32d711e9a01999e60c73986757ed058503d7f2001eb0',
  6: 'b153829d2f981319399f18b06bcc59ba2b1a4908ac1dc2209daad1d87c7490dd',
  7: '63ede93c5fa4cafbca7fd49b12a601681756da62e5c221fa95fc767b98238ce2',
  8: 'bb21d2eea255e5a9f0367f3ec0299ebb584650fb3e395640162a99ce3baa0260',
  9: '09e13c71662565fef1ed7bf651d2acbce3eed38cf999924dcbdf44c9bb0fa424',
  10: '0e655574b716e249c21bb1f2cb40c714f2198d4e0fd1b4d5b9f6c9b44c2adf51',
  11: '2192b243858f2c2805167f4501c822e0e7474e9ba4cf306fd1c5e0ac972f3b1a',
  12: 'e26a970817a0179273844d152cd0268840cd94d5c7e7b4ea684dd7482227532a',
  13: '0ffab6a2bb410b6af2498fbbcdd95567afe699faaab983829729bf881897c0ed',
};

const POSTGRES_SHIPPED: Readonly<Record<number, string>> = {
  1: '6a3b9b617d549654172a48a965b901a1f2593c708368869b7663c4d3a36a4a44',
  2: 'c3aa35e46c42f3fa27434a2cab8d1289c41dbc08d261ac50cf9c3efbab62a292',
  3: '585ff312e20482a269f9f73474517ef20eeaacd8600fc347b906e7d173d8d434',
  4: 'e956ac3d911b252823343fd1f210b023c327523174ed3867abe094f3248cceb8',
  5: '7d81e0b402247a102fe8a26e8533e83620b917ab3898409ea3f3d5dde4010e81',
  6: 'fc8139bff202b3c1e802cbd413a86096f1c9eb161328ddbfe788ec698557f7f9',
  7: '87b979bd1822a5fc2089e9f940fd9ff3c7de7f7017925b268fd3cb285f742d11',
  8: '3b93211edbeb87076f535cea984d7d87ae1ca9b4bea1d3cff548aec1785b1fab',
  9: 'f364bc1beae7eea46d0f6937ef00b73fd45a954fa21bbffd38c97ba4747f7bc2',
  10: '5390113dad2084fa952698712cbac640de0853c0fe9568eb6b1d6805c517657e',
  11: '310f677adee1f94650086d542d1dabf56a12d567a1957408caad8226d2d30476',
  12: 'ebffa6ca1208193d5aee65ebed5dd2ce010045a650cbd84e751f4baf7102b0ea',
  13: '5e4cd7af1da188606a9cad5d340465dca4d30a81c45d5f5d16f3a9e6d4cea649',
  14: 'c775b1e34b508f90964c0e9ca92011617a373ff9f3b03566280e2022d2a71014',
  15: '3e40b8336fa2f61380cb42e88815c0129a164c0720c92dce2d9d05d975dff57c',
};

const checksum = (migration: Migration) => createHash('sha256').update(migration.sql).digest('hex');

for (const [backend, migrations, shipped] of [
  ['SQLite', SQLITE_MIGRATIONS, SQLITE_SHIPPED],
  ['PostgreSQL', POSTGRES_MIGRATIONS, POSTGRES_SHIPPED],
] as const) {
  test(`${backend}: every shipped migration is as it shipped, numbered in order from 1`, () => {
    assert.deepEqual(
      migrations.map((migration) => migration.version),
      migrations.map((_, index) => index + 1),
      'versions 1, 2, 3, … in order, none skipped',
    );
    for (const migration of migrations) {
      const expected = shipped[migration.version];
      assert.ok(expected !== undefined, `migration ${migration.version} has no checksum here: add it when it ships`);
      assert.equal(
        checksum(migration),
        expected,
        `migration ${migration.version} (${migration.name}) was edited: add a new one instead`,
      );
    }
    assert.equal(Object.keys(shipped).length, migrations.length, 'a shipped migration was removed');
  });
}
