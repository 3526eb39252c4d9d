import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliJson } from '../support/cli.js';
import { type HostApiServer, hostCall, hostRecord, mealPath, startHostApiServer } from '../support/host-api.js';
import { newPostgresDatabase, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { newUserId } from '../support/server.js';
import { hostAccountRules } from './host-accounts.suite.js';
import { hostErrorRules } from './host-api-errors.suite.js';
import { hostImportRules } from './host-import.suite.js';
import { hostMealRules } from './host-meals.suite.js';

// Every rule of the host API over real HTTPS on PostgreSQL, and the ordering race of two
// instances of the scale-out on one database.
const skip = await postgresSkipReason();

describe('host API on PostgreSQL', { skip: skip ?? false }, () => {
  let store: TestPostgresStore | undefined;
  let first: HostApiServer | undefined;
  let second: HostApiServer | undefined;

  before(async () => {
    store = await newPostgresDatabase('host_api');
    const options = { db: store.url, extraArgs: ['--public-url', 'https://meals.example.com'] };
    first = await startHostApiServer(options);
    second = await startHostApiServer(options);
  });

  after(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await store?.remove();
  });

  const open = (): HostApiServer => {
    if (first === undefined) throw new Error('the server did not start');
    return first;
  };

  hostMealRules('PostgreSQL', open);
  hostErrorRules('PostgreSQL', open);
  hostImportRules('PostgreSQL', open);
  hostAccountRules('PostgreSQL', open);

  test('a token revoked through one instance is refused by the other within 1 s', async () => {
    const other = second;
    assert.ok(other !== undefined && store !== undefined);
    const made = await cliJson<{ id: string; token: string }>([
      'service-tokens',
      'create',
      '--name',
      'x',
      '--db',
      store.url,
      '--json',
    ]);
    const path = mealPath(newUserId('revoked'), 'nothing');
    assert.equal((await hostCall(other, { path, token: made.token })).status, 404, 'the token works');
    await cliJson(['service-tokens', 'revoke', made.id, '--db', store.url, '--json']);
    const revokedAt = performance.now();
    let status = (await hostCall(other, { path, token: made.token })).status;
    while (status !== 401 && performance.now() - revokedAt < 1_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await hostCall(other, { path, token: made.token })).status;
    }
    assert.equal(status, 401, `still accepted ${Math.round(performance.now() - revokedAt)} ms after the revocation`);
  });

  test('two saves of one meal racing on two instances end with the greater version, whatever the order', async () => {
    const [a, b] = [open(), second];
    assert.ok(b !== undefined);
    const userId = newUserId('race');
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 40; round += 1) {
      const mealId = `${userId}-${round}`;
      // Each round sends the two versions at once, from the two instances, swapping which gets which.
      const [five, six] = round % 2 === 0 ? [a, b] : [b, a];
      const answers = await Promise.all([
        hostCall(five, {
          method: 'PUT',
          path: mealPath(userId, mealId),
          json: hostRecord({ title: 'v5', sourceVersion: 5 }),
        }),
        hostCall(six, {
          method: 'PUT',
          path: mealPath(userId, mealId),
          json: hostRecord({ title: 'v6', sourceVersion: 6 }),
        }),
      ]);
      for (const res of answers) {
        const outcome = (res.json as { outcome: string }).outcome;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      const meal = (await hostCall(b, { path: mealPath(userId, mealId) })).json as {
        title: string;
        sourceVersion: number;
      };
      assert.deepEqual([meal.title, meal.sourceVersion], ['v6', 6], `round ${round}`);
    }
    // Both orders happened: some rounds saw v5 first (created, then v6 updated), some v6 first (v5 stale).
    assert.equal((outcomes.get('created') ?? 0) + (outcomes.get('updated') ?? 0) + (outcomes.get('stale') ?? 0), 80);
  });
});
