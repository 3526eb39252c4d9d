import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type HostApiServer, hostCall, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { newUserId, request, type TestResponse } from '../support/server.js';
import { allowOnPage, formFields, redirectOf, signedInCookie } from '../support/connect-person.js';
import { appPageUrl, pageRequest } from './page-client.js';

// Every fault of Connect's authorization request in its place (docs/connect.md#errors): no
// redirect to an unknown app or redirect URI, an error redirect with state and iss for the rest;
// a consent post without its token or from another site issues nothing; at 10 keys no Allow;
// and the token endpoint's refusals in RFC 6749's JSON. Over real HTTPS, as a browser and an
// app's server send them.
const REDIRECT = 'https://coach.example/callback';
const LOOPBACK = 'http://127.0.0.1:3080/callback';

let server: HostApiServer;
let app: string;
let origin: string;
let client: { id: string; clientSecret: string };

before(async () => {
  server = await startHostApiServer({ extraArgs: ['--app-port', '0'] }, startInProcessServer);
  app = await appPageUrl(server);
  origin = new URL(app).origin;
  const made = await hostCall(server, {
    method: 'POST',
    path: '/host/v1/apps',
    json: { name: 'Coach', redirectUris: [REDIRECT, LOOPBACK] },
  });
  client = made.json as { id: string; clientSecret: string };
});

after(async () => {
  await server?.stop();
});

const cookieOf = (userId: string) => signedInCookie(server, app, userId);
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const VERIFIER = randomBytes(32).toString('base64url');

function authorizeQuery(overrides: Record<string, string | null> = {}): string {
  const base: Record<string, string | null> = {
    response_type: 'code',
    client_id: client.id,
    redirect_uri: REDIRECT,
    state: 'st-1',
    code_challenge: challengeOf(VERIFIER),
    code_challenge_method: 'S256',
    ...overrides,
  };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(base)) if (value !== null) query.append(name, value);
  return `/oauth/authorize?${query.toString()}`;
}

describe('the authorization request, fault by fault', () => {
  test('an unknown app, a missing or unregistered redirect URI: a page, never a redirect', async () => {
    for (const [label, overrides] of [
      ['unknown app', { client_id: 'app_nobody' }],
      ['no app', { client_id: null }],
      ['no redirect URI', { redirect_uri: null }],
      ['another redirect URI', { redirect_uri: 'https://evil.example/callback' }],
      ['a registered one with more', { redirect_uri: `${REDIRECT}/more` }],
      ['an https loopback', { redirect_uri: 'https://127.0.0.1:3080/callback' }],
    ] as const) {
      const res = await pageRequest(app, { path: authorizeQuery(overrides) });
      assert.equal(res.status, 400, label);
      assert.equal(res.headers.location, undefined, `${label}: no redirect`);
      assert.match(res.text, /This app cannot connect/, label);
    }
  });

  test('every other fault goes back to the redirect URI with error, state and iss', async () => {
    const issuer = server.url.replace(/\/$/, '');
    for (const [label, overrides, error] of [
      ['no response_type', { response_type: null }, 'invalid_request'],
      ['a token response_type', { response_type: 'token' }, 'unsupported_response_type'],
      ['no state', { state: null }, 'invalid_request'],
      ['no PKCE', { code_challenge: null, code_challenge_method: null }, 'invalid_request'],
      ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
      ['a short challenge', { code_challenge: 'abc' }, 'invalid_request'],
      ['another scope', { scope: 'meals:write' }, 'invalid_scope'],
    ] as const) {
      const location = redirectOf(await pageRequest(app, { path: authorizeQuery(overrides) }));
      assert.equal(`${location.origin}${location.pathname}`, REDIRECT, label);
      assert.equal(location.searchParams.get('error'), error, label);
      assert.equal(location.searchParams.get('state'), label === 'no state' ? null : 'st-1', label);
      assert.equal(location.searchParams.get('iss'), issuer, label);
    }
    const repeated = `${authorizeQuery()}&state=again`;
    assert.equal(redirectOf(await pageRequest(app, { path: repeated })).searchParams.get('error'), 'invalid_request');
  });

  test("a loopback redirect URI may come back on another port, the registered one's path", async () => {
    const cookie = await cookieOf(newUserId('loopback'));
    const res = await pageRequest(app, {
      path: authorizeQuery({ redirect_uri: 'http://127.0.0.1:51234/callback' }),
      headers: { cookie },
    });
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, /127\.0\.0\.1:51234/);
  });
});

describe('the consent form', () => {
  test('without its token, or from another site, issues nothing; Cancel answers access_denied', async () => {
    const cookie = await cookieOf(newUserId('forged'));
    const page = await pageRequest(app, { path: authorizeQuery(), headers: { cookie } });
    assert.equal(page.status, 200);
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    const fields = formFields(page);
    const { csrf: _csrf, ...withoutToken } = fields;
    for (const [label, form, headers] of [
      ['no token', { ...withoutToken, decision: 'allow' }, { cookie, origin }],
      ['another site', { ...fields, decision: 'allow' }, { cookie, origin: 'https://evil.example' }],
      ['no origin nor fetch metadata', { ...fields, decision: 'allow' }, { cookie }],
    ] as const) {
      const res = await pageRequest(app, { path: '/oauth/authorize', headers, form });
      assert.equal(res.status, 403, label);
      assert.equal(res.headers.location, undefined, `${label}: no code`);
    }
    const nullOrigin = await pageRequest(app, {
      path: '/oauth/authorize',
      headers: { cookie, origin: 'null', 'sec-fetch-site': 'same-origin' },
      form: { ...fields, decision: 'cancel' },
    });
    const cancelled = redirectOf(nullOrigin);
    assert.equal(cancelled.searchParams.get('error'), 'access_denied');
    assert.equal(cancelled.searchParams.get('state'), 'st-1');
  });

  test('with 10 active keys the page says so and offers no Allow, and an Allow posted anyway issues nothing', async () => {
    const userId = newUserId('full');
    for (let i = 0; i < 10; i += 1) await server.createKey(userId);
    const cookie = await cookieOf(userId);
    const page = await pageRequest(app, { path: authorizeQuery(), headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(page.text, /already have 10 active API keys/);
    assert.doesNotMatch(page.text, /value="allow"/);
    const res = await pageRequest(app, {
      path: '/oauth/authorize',
      headers: { cookie, origin },
      form: { ...formFields(page), decision: 'allow' },
    });
    assert.equal(res.status, 200, 'the page again, no redirect with a code');
  });
});

describe('the token endpoint', () => {
  const basic = (secret = client.clientSecret, id = client.id) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const post = (form: Record<string, string>, headers: Record<string, string> = {}): Promise<TestResponse> =>
    request(server, {
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });

  async function freshCode(userId: string): Promise<string> {
    return (await allowOnPage(app, await cookieOf(userId), authorizeQuery())).searchParams.get('code') ?? '';
  }

  const errorOf = (res: TestResponse) => (res.json as { error: string }).error;
  const exchange = (code: string, extra: Record<string, string> = {}) => ({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
    ...extra,
  });

  test('refusals in RFC 6749 JSON, with no-store; a code spent by a bad attempt stays spent', async () => {
    const code = await freshCode(newUserId('token'));
    const wrongSecret = await post(exchange(code), { authorization: basic(`mxa_${'1'.repeat(49)}`) });
    assert.equal(wrongSecret.status, 401);
    assert.equal(errorOf(wrongSecret), 'invalid_client');
    assert.equal(wrongSecret.headers['www-authenticate'], 'Basic realm="meal-export"');
    assert.equal(wrongSecret.headers['cache-control'], 'no-store');
    const both = await post({ ...exchange(code), client_secret: client.clientSecret }, { authorization: basic() });
    assert.deepEqual([both.status, errorOf(both)], [400, 'invalid_request']);
    const grant = await post(exchange(code, { grant_type: 'client_credentials' }), { authorization: basic() });
    assert.deepEqual([grant.status, errorOf(grant)], [400, 'unsupported_grant_type']);
    const noVerifier = await post(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { authorization: basic() },
    );
    assert.deepEqual([noVerifier.status, errorOf(noVerifier)], [400, 'invalid_request']);
    // The code is still unused: each refusal above came before it was looked at.
    const wrongVerifier = await post(exchange(code, { code_verifier: randomBytes(32).toString('base64url') }), {
      authorization: basic(),
    });
    assert.deepEqual([wrongVerifier.status, errorOf(wrongVerifier)], [400, 'invalid_grant']);
    const afterIt = await post(exchange(code), { authorization: basic() });
    assert.deepEqual([afterIt.status, errorOf(afterIt)], [400, 'invalid_grant'], 'a code is tried once');
  });

  test('client_secret_post works; a redirect URI other than the request’s is invalid_grant', async () => {
    const code = await freshCode(newUserId('post'));
    const other = await post({
      ...exchange(code, { redirect_uri: LOOPBACK }),
      client_id: client.id,
      client_secret: client.clientSecret,
    });
    assert.deepEqual([other.status, errorOf(other)], [400, 'invalid_grant']);
    const fresh = await freshCode(newUserId('post2'));
    const ok = await post({ ...exchange(fresh), client_id: client.id, client_secret: client.clientSecret });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers['cache-control'], 'no-store');
    assert.deepEqual(Object.keys(ok.json as object), ['access_token', 'token_type', 'scope', 'key_id', 'user_id']);
  });

  test("another app's client cannot redeem the code", async () => {
    const made = await hostCall(server, {
      method: 'POST',
      path: '/host/v1/apps',
      json: { name: 'Other', redirectUris: [REDIRECT] },
    });
    const otherApp = made.json as { id: string; clientSecret: string };
    const code = await freshCode(newUserId('stolen'));
    const res = await post(exchange(code), { authorization: basic(otherApp.clientSecret, otherApp.id) });
    assert.deepEqual([res.status, errorOf(res)], [400, 'invalid_grant']);
  });
});

describe('failed client authentications', () => {
  let guarded: HostApiServer;

  before(async () => {
    guarded = await startHostApiServer({}, startInProcessServer);
  });

  after(async () => {
    await guarded?.stop();
  });

  test('count per address as failed keys do: after 20, 429 rate_limited with Retry-After', async () => {
    const wrong = `Basic ${Buffer.from(`app_none:mxa_${'2'.repeat(49)}`).toString('base64')}`;
    const attempt = () =>
      request(guarded, {
        method: 'POST',
        path: '/oauth/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: wrong },
        body: 'token=mxk_x',
      });
    for (let i = 0; i < 20; i += 1) assert.equal((await attempt()).status, 401, `attempt ${i + 1}`);
    const blocked = await attempt();
    assert.equal(blocked.status, 429, blocked.text);
    assert.equal((blocked.json as { error: string }).error, 'rate_limited');
    assert.match(String(blocked.headers['retry-after']), /^[1-9][0-9]*$/);
  });
});
