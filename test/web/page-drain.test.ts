import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pausedRequest, refused } from '../support/answer-in-flight.js';
import { signedInCookie } from '../support/connect-person.js';
import { type HostApiServer, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { newPostgresDatabase, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { makeMeal, newUserId, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { appPageUrl, pageRequest } from './page-client.js';

// The app page as a listener of the service (docs/operations.md): on SIGTERM a page answer in
// flight is answered in full, as the API's are, within the same 30 s; and its 503, when the
// store does not answer, says when to try again.
const pgSkip = await postgresSkipReason();

/** Opens a GET of the page, with its session, and stops reading its answer once the headers are in. */
function pausedPageGet(app: string, path: string, cookie: string) {
  const url = new URL(path, app);
  return pausedRequest({
    host: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    headers: { cookie },
    rejectUnauthorized: false,
    agent: false,
  });
}

describe('the app page on SIGTERM', () => {
  let server: (TestServer & HostApiServer) | undefined;

  after(async () => {
    await server?.stop().catch(() => undefined);
  });

  test('a CSV download in flight is answered in full; no new connection is accepted meanwhile', async () => {
    server = await startHostApiServer({ extraArgs: ['--app-port', '0'] });
    const app = await appPageUrl(server);
    const userId = newUserId('drain');
    const description = 'a long description of the meal, '.repeat(60);
    const meals = Array.from({ length: 5000 }, () => makeMeal(undefined, { description }));
    await server.importMeals(userId, meals);
    const cookie = await signedInCookie(server, app, userId);
    const inFlight = await pausedPageGet(app, '/export.csv', cookie);
    assert.equal(inFlight.status, 200);
    const exited = server.stop();
    await sleep(500);
    assert.equal(await refused(Number(new URL(app).port)), true, 'the page accepts no new connection');
    const csv = await inFlight.readAll();
    assert.equal(csv.trimEnd().split('\n').length, 5001, 'the header and every meal');
    assert.equal(await exited, 0);
    server = undefined;
  });
});

describe('the app page when the store does not answer', { skip: pgSkip ?? false }, () => {
  let store: TestPostgresStore | undefined;
  let proxy: TcpProxy | undefined;
  let server: HostApiServer | undefined;

  after(async () => {
    proxy?.restore();
    await server?.stop();
    await proxy?.close();
    await store?.remove();
  });

  test('503, with Retry-After', async () => {
    store = await newPostgresDatabase('page_503');
    const target = new URL(store.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.hostname = proxy.host;
    target.port = String(proxy.port);
    server = await startHostApiServer({ db: target.href, extraArgs: ['--app-port', '0'] }, startInProcessServer);
    const app = await appPageUrl(server);
    const cookie = await signedInCookie(server, app, newUserId('page503'));
    assert.equal((await pageRequest(app, { path: '/', headers: { cookie } })).status, 200);
    proxy.cut('refuse');
    const unavailable = await pageRequest(app, { path: '/', headers: { cookie } });
    assert.equal(unavailable.status, 503, unavailable.text);
    assert.equal(unavailable.headers['retry-after'], '5');
    assert.match(unavailable.text, /Try again in a moment/);
  });
});
