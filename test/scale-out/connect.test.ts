import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { allowOnPage, formFields, signedInCookie } from '../support/connect-person.js';
import { type HostApiServer, hostCall, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { pgbouncerSkipReason, startPgBouncer, type TestPgBouncer } from '../support/pgbouncer.js';
import { postgresSkipReason } from '../support/postgres.js';
import { redisSkipReason } from '../support/redis.js';
import { newScaleOutStore, type ScaleOutStore } from '../support/scale-out-store.js';
import { getMeals, newUserId, request } from '../support/server.js';
import { appPageUrl, pageRequest } from '../web/page-client.js';

// Connect on two instances of one PostgreSQL and Redis (docs/connect.md): a code the page of one issued is
// redeemed at the other's token endpoint, and a Disconnect on one is refused by the other within
// 1 s; the same behind a transaction-pooling PgBouncer.
const pgSkip = (await postgresSkipReason()) ?? (await redisSkipReason());
const REDIRECT = 'https://coach.example/callback';
const SINCE = { lastModifiedSince: '1970-01-01T00:00:00Z' };

async function refusedWithin(server: HostApiServer, key: string, ms: number): Promise<boolean> {
  const started = performance.now();
  for (;;) {
    if ((await getMeals(server, key, SINCE)).status === 401) return true;
    if (performance.now() - started > ms) return false;
  }
}

function connectAcrossInstances(name: string, skip: string | undefined, through: (url: string) => Promise<string>) {
  describe(`Connect on two instances of one PostgreSQL and Redis (${name})`, { skip: skip ?? false }, () => {
    let store: ScaleOutStore;
    let first: HostApiServer;
    let second: HostApiServer;

    before(async () => {
      store = await newScaleOutStore('connect');
      const db = await through(store.db);
      const options = { db, redis: store.redis, extraArgs: ['--app-port', '0'] };
      first = await startHostApiServer(options, startInProcessServer);
      second = await startHostApiServer(options, startInProcessServer);
    });

    after(async () => {
      await Promise.all([first?.stop(), second?.stop()]);
      await store?.remove();
    });

    test('a code issued by one is redeemed at the other; a Disconnect on one is refused by the other', async () => {
      const made = await hostCall(first, {
        method: 'POST',
        path: '/host/v1/apps',
        json: { name: 'Coach', redirectUris: [REDIRECT] },
      });
      const app = made.json as { id: string; clientSecret: string };
      const verifier = randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: app.id,
        redirect_uri: REDIRECT,
        state: 's',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      });
      const page = await appPageUrl(first);
      const userId = newUserId('across');
      const cookie = await signedInCookie(first, page, userId);
      const code = (await allowOnPage(page, cookie, `/oauth/authorize?${query.toString()}`)).searchParams.get('code');
      assert.ok(code !== null);

      const token = await request(second, {
        method: 'POST',
        path: '/oauth/token',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${app.id}:${app.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
        }).toString(),
      });
      assert.equal(token.status, 200, token.text);
      const key = (token.json as { access_token: string }).access_token;
      assert.equal((await getMeals(first, key, SINCE)).status, 200);
      assert.equal((await getMeals(second, key, SINCE)).status, 200);

      const home = await pageRequest(page, { path: '/', headers: { cookie } });
      const { csrf = '' } = formFields(home);
      const disconnected = await pageRequest(page, {
        path: `/connected-apps/${encodeURIComponent(app.id)}/disconnect`,
        headers: { cookie, origin: new URL(page).origin },
        form: { csrf },
      });
      assert.equal(disconnected.status, 303, disconnected.text);
      assert.ok(await refusedWithin(second, key, 1_000), 'the other instance refuses the key within 1 s');
    });
  });
}

connectAcrossInstances('direct', pgSkip, async (url) => url);

let bouncer: TestPgBouncer | undefined;
after(async () => {
  await bouncer?.close();
});
connectAcrossInstances('behind PgBouncer', pgSkip ?? pgbouncerSkipReason(), async (url) => {
  bouncer ??= await startPgBouncer({ poolSize: 2 });
  return bouncer.through(url);
});
