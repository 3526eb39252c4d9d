import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { type HostApiServer, hostCall, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { getMeals, makeMeal, newUserId } from '../support/server.js';
import { expectNoAxeViolations, VIEWPORTS } from './axe.js';
import { browserMissing, launchChromium, screenshotPath } from './browser.js';
import { appPageUrl, pageRequest } from './page-client.js';

// Connect end to end (docs/connect.md): a third party's code, written with a standard OAuth
// client library (oauth4webapi), configures itself from the discovery document, sends a person
// to the app page, where Chromium signs in by a sign-in link made with `next`, sees the
// consent page (axe clean at phone and desktop widths) and presses Allow; the third party's
// callback on a loopback port gets the code, the library exchanges it for a key, the key reads
// the person's meals, and the library's revocation refuses it within 1 s.
const skip = browserMissing();
const SIGN_IN = 'https://diet.example/sign-in';

/** The third party's callback: records each request's URL and says so to the browser. */
async function startCallback(): Promise<{ server: Server; url: string; hits: URL[] }> {
  const hits: URL[] = [];
  const server = createServer((request, response) => {
    hits.push(new URL(request.url ?? '/', 'http://127.0.0.1'));
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<title>Connected</title><p>Connected.');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `http://127.0.0.1:${address.port}/callback`, hits };
}

/** The library's requests over TLS to the service's own certificate (as a third party trusts a public one). */
function trustingFetch(ca: string) {
  return async (
    input: string,
    init: {
      readonly method?: string;
      readonly headers?: ConstructorParameters<typeof Headers>[0];
      readonly body?: unknown;
    },
  ): Promise<Response> => {
    const url = new URL(input);
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    return new Promise<Response>((resolve, reject) => {
      const request = https.request(url, { method: init.method ?? 'GET', headers, ca, agent: false }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(answer.headers)) {
            if (typeof value === 'string') answerHeaders.set(name, value);
          }
          resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 500, headers: answerHeaders }));
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  };
}

describe('Connect: a third party gets a key by the person’s consent, in Chromium', { skip: skip ?? false }, () => {
  let server: HostApiServer;
  let callback: Awaited<ReturnType<typeof startCallback>>;
  let browser: Browser;
  let app: string;

  before(async () => {
    callback = await startCallback();
    server = await startHostApiServer(
      { extraArgs: ['--app-port', '0', '--app-sign-in-url', SIGN_IN] },
      startInProcessServer,
    );
    app = await appPageUrl(server);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    callback?.server.close();
  });

  /** Whether the key is refused within 1 s (a revoked key is, on every instance). */
  async function refusedWithinASecond(key: string): Promise<boolean> {
    const started = performance.now();
    for (;;) {
      const status = (await getMeals(server, key, { lastModifiedSince: '1970-01-01T00:00:00Z' })).status;
      if (status === 401) return true;
      if (performance.now() - started > 1_000) return false;
    }
  }

  test('discovery, sign-in with next, consent, the key used, the code twice, revocation, Disconnect, one key per app', async () => {
    const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
    const customFetch = trustingFetch(ca);
    const fetchOptions = { [oauth.customFetch]: customFetch };
    const registered = await hostCall(server, {
      method: 'POST',
      path: '/host/v1/apps',
      json: { name: 'Coach Anna', redirectUris: [callback.url], homepageUrl: 'https://coach.example/' },
    });
    assert.equal(registered.status, 201, registered.text);
    const { id: clientId, clientSecret } = registered.json as { id: string; clientSecret: string };
    const userId = newUserId('connect');
    await server.importMeals(userId, [makeMeal(undefined, { title: 'Porridge' })]);

    // The third party, with its library.
    const issuer = new URL(server.url.replace(/\/$/, ''));
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...fetchOptions }),
    );
    assert.equal(as.authorization_endpoint, `${app.replace(/\/$/, '')}/oauth/authorize`);
    const client: oauth.Client = { client_id: clientId };
    const auth = oauth.ClientSecretBasic(clientSecret);

    /** An authorization request as the library makes one, with its verifier and state. */
    async function request() {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint ?? '');
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: callback.url,
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        scope: 'meals:read',
      }).toString();
      return { url, verifier, state };
    }

    /** The person presses Allow on `page`; the library checks the answer and exchanges the code. */
    async function allowAndExchange(page: Page, asked: Awaited<ReturnType<typeof request>>) {
      await page
        .getByRole('heading', { level: 1, name: /Coach Anna \(coach\.example\) asks to read your meals/ })
        .waitFor();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.href.startsWith(callback.url));
      // The last request to the callback itself (the browser asks for /favicon.ico after it).
      const returned = callback.hits.filter((hit) => hit.pathname === '/callback').at(-1);
      assert.ok(returned !== undefined);
      assert.equal(returned.searchParams.get('iss'), issuer.href.replace(/\/$/, ''));
      const params = oauth.validateAuthResponse(as, client, returned, asked.state);
      const exchange = () =>
        oauth.authorizationCodeGrantRequest(as, client, auth, params, callback.url, asked.verifier, fetchOptions);
      return { token: await oauth.processAuthorizationCodeResponse(as, client, await exchange()), exchange };
    }

    // The person, not signed in: sent to the diet app's sign-in with the way back.
    const first = await request();
    const unsigned = await pageRequest(app, { path: `${first.url.pathname}${first.url.search}` });
    assert.equal(unsigned.status, 303);
    const signIn = new URL(String(unsigned.headers.location));
    assert.equal(`${signIn.origin}${signIn.pathname}`, SIGN_IN);
    const returnTo = signIn.searchParams.get('return');
    assert.equal(returnTo, `${first.url.pathname}${first.url.search}`);

    // The diet app signs the person in and sends them to a sign-in link made with `next`.
    const link = await hostCall(server, {
      method: 'POST',
      path: `/host/v1/users/${encodeURIComponent(userId)}/login-links`,
      json: { next: returnTo },
    });
    assert.equal(link.status, 201, link.text);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page: Page = await context.newPage();
    await page.goto((link.json as { url: string }).url);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: /asks to read your meals/ }).waitFor();
    assert.match(await page.content(), /127\.0\.0\.1/);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await expectNoAxeViolations(page, `consent page at ${viewport.width}px`);
    }
    await page.screenshot({ path: screenshotPath('connect-consent.png') });
    const granted = await allowAndExchange(page, first);
    const { token } = granted;
    assert.equal(token.token_type.toLowerCase(), 'bearer');
    assert.match(token.access_token, /^mxk_/);
    assert.equal(token.user_id, userId);
    assert.equal(token.scope, 'meals:read');

    const meals = await getMeals(server, token.access_token, { lastModifiedSince: '1970-01-01T00:00:00Z' });
    assert.equal(meals.status, 200, meals.text);
    assert.deepEqual(
      (meals.json as { meals: { title: string }[] }).meals.map((meal) => meal.title),
      ['Porridge'],
    );
    const keysPath = `/host/v1/users/${encodeURIComponent(userId)}/keys`;
    const keys = (await hostCall(server, { path: keysPath })).json as { id: string; name: string; appId: string }[];
    assert.deepEqual(
      keys.map((key) => [key.id, key.name, key.appId]),
      [[token.key_id, 'Coach Anna', clientId]],
    );

    // The person's page: the app under Connected apps, apart from the keys they made.
    await page.goto(app);
    const connected = page.getByRole('region', { name: 'Connected apps' });
    await connected.getByRole('row', { name: /Coach Anna/ }).waitFor();
    await page.getByText('You have no API keys yet.').waitFor();
    await page.getByText('1 of 10 active keys.').waitFor(); // the app's key counts toward the person's limit
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await expectNoAxeViolations(page, `connected apps at ${viewport.width}px`);
    }

    // The same code again: refused, and the key it gave is revoked.
    const again = await granted.exchange();
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
    assert.ok(await refusedWithinASecond(token.access_token), 'the key of a code presented twice is refused');

    // Revocation by the app (RFC 7009), with the library.
    const second = await (async () => {
      const asked = await request();
      await page.goto(asked.url.href);
      return allowAndExchange(page, asked);
    })();
    const revoked = await oauth.revocationRequest(as, client, auth, second.token.access_token, fetchOptions);
    await oauth.processRevocationResponse(revoked);
    assert.ok(await refusedWithinASecond(second.token.access_token), 'a key the app revoked is refused');

    // One key per app and person: a new grant revokes the app's earlier key.
    const third = await (async () => {
      const asked = await request();
      await page.goto(asked.url.href);
      return allowAndExchange(page, asked);
    })();
    const fourth = await (async () => {
      const asked = await request();
      await page.goto(asked.url.href);
      return allowAndExchange(page, asked);
    })();
    assert.ok(await refusedWithinASecond(third.token.access_token), 'the earlier key of the app is revoked');
    assert.equal(
      (await getMeals(server, fourth.token.access_token, { lastModifiedSince: '1970-01-01T00:00:00Z' })).status,
      200,
    );

    // Disconnect on the page.
    await page.goto(app);
    await page.getByRole('button', { name: 'Disconnect Coach Anna' }).click();
    await page.getByText('Coach Anna is disconnected: its key no longer works.').waitFor();
    assert.ok(await refusedWithinASecond(fourth.token.access_token), 'a disconnected app is refused');
    await page.getByText('No app is connected.', { exact: false }).waitFor();
    await context.close();
  });
});
