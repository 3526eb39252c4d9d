import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startInProcessServer } from '../support/in-process-server.js';
import { type LaterServiceProxy, startLaterServiceProxy } from '../support/later-service-proxy.js';
import { makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { makeTempDir } from '../support/project.js';
import { assertSameAsExport, pull, pullFiles } from './pull-harness.js';

// `meal-export pull` against answers as a later /v1 may send them (docs/api.md#compatibility):
// the real service behind a proxy that adds fields to every object and headers to every answer.
// The copy must be what `meals export` writes, byte for byte, and each catch-up verified.
let server: ServedApp;
let proxy: LaterServiceProxy;
let throughProxy: ServedApp;
const temp = makeTempDir('pull-later');

before(async () => {
  server = await startInProcessServer();
  proxy = await startLaterServiceProxy(server);
  // pull's harness reads the CA from the server's folder and the address from `url`.
  throughProxy = { ...server, url: proxy.url };
});

after(async () => {
  await proxy.close();
  await server.stop();
  temp.remove();
});

for (const format of ['csv', 'jsonl'] as const) {
  test(`pull into .${format} keeps a copy equal to meals export through creates, changes and deletes`, async () => {
    const userId = newUserId('pull-later');
    const { key } = await server.createKey(userId);
    const meals = Array.from({ length: 5 }, () => makeMeal(undefined, { description: 'with, a comma\nand a line' }));
    await server.importMeals(userId, meals);
    const files = pullFiles(temp.dir, `later-${format}`, format);

    const before = proxy.extended();
    const first = await pull(throughProxy, key, files, ['--limit', '2']);
    assert.ok(proxy.extended() > before, 'the answers were extended');
    assert.deepEqual(first, { pages: first.pages, upserted: 5, deleted: 0, total: 5, verified: true });
    await assertSameAsExport(server, userId, files.out, format);

    const [gone, changed] = meals.map((meal) => String(meal.id));
    assert.ok(gone !== undefined && changed !== undefined);
    await server.deleteMeal(userId, gone);
    await server.importMeals(userId, [makeMeal(changed, { title: 'changed' }), makeMeal()]);
    const second = await pull(throughProxy, key, files, ['--limit', '2']);
    assert.deepEqual(second, { pages: second.pages, upserted: 2, deleted: 1, total: 5, verified: true });
    await assertSameAsExport(server, userId, files.out, format);
  });
}
