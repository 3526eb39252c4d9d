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

  test('discovery, sign-in with next, consent, the code exchanged, the key used, then revoked', async () => {
    const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
    const customFetch = trustingFetch(ca);
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
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.customFetch]: customFetch }),
    );
    assert.equal(as.authorization_endpoint, `${app.replace(/\/$/, '')}/oauth/authorize`);
    const client: oauth.Client = { client_id: clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint ?? '');
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.url,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      scope: 'meals:read',
    }).toString();

    // The person, not signed in: sent to the diet app's sign-in with the way back.
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page: Page = await context.newPage();
    const unsigned = await pageRequest(app, { path: `${authorize.pathname}${authorize.search}` });
    assert.equal(unsigned.status, 303);
    const signIn = new URL(String(unsigned.headers.location));
    assert.equal(`${signIn.origin}${signIn.pathname}`, SIGN_IN);
    const returnTo = signIn.searchParams.get('return');
    assert.equal(returnTo, `${authorize.pathname}${authorize.search}`);

    // The diet app signs the person in and sends them to a sign-in link made with `next`.
    const link = await hostCall(server, {
      method: 'POST',
      path: `/host/v1/users/${encodeURIComponent(userId)}/login-links`,
      json: { next: returnTo },
    });
    assert.equal(link.status, 201, link.text);
    await page.goto((link.json as { url: string }).url);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page
      .getByRole('heading', { level: 1, name: /Coach Anna \(coach\.example\) asks to read your meals/ })
      .waitFor();
    assert.match(await page.content(), /127\.0\.0\.1/);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await expectNoAxeViolations(page, `consent page at ${viewport.width}px`);
    }
    await page.screenshot({ path: screenshotPath('connect-consent.png') });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.url));

    const returned = callback.hits.at(-1);
    assert.ok(returned !== undefined);
    assert.equal(returned.searchParams.get('iss'), issuer.href.replace(/\/$/, ''));
    const params = oauth.validateAuthResponse(as, client, returned, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(clientSecret),
      params,
      callback.url,
      verifier,
      { [oauth.customFetch]: customFetch },
    );
    const token = await oauth.processAuthorizationCodeResponse(as, client, response);
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
    const keys = (await hostCall(server, { path: `/host/v1/users/${encodeURIComponent(userId)}/keys` })).json as {
      id: string;
      name: string;
      appId: string | null;
    }[];
    assert.deepEqual(
      keys.map((key) => [key.id, key.name, key.appId]),
      [[token.key_id, 'Coach Anna', clientId]],
    );

    // The same code again: refused, and the key it gave is revoked.
    const again = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(clientSecret),
      params,
      callback.url,
      verifier,
      { [oauth.customFetch]: customFetch },
    );
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
    const revokedAt = performance.now();
    let status = 200;
    while (status !== 401 && performance.now() - revokedAt < 1_000) {
      status = (await getMeals(server, token.access_token, { lastModifiedSince: '1970-01-01T00:00:00Z' })).status;
    }
    assert.equal(status, 401, 'the key of a code presented twice is refused within 1 s');
    await context.close();
  });
});
