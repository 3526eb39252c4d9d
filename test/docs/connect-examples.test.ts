import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { type HostApiServer, hostCall, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';
import { getMeals, makeMeal, newUserId } from '../support/server.js';
import { appPageUrl } from '../web/page-client.js';
import { allowOnPage, signedInCookie } from '../support/connect-person.js';

// docs/connect.md's two third-party clients, run as written (docs/examples/connect-client.mjs
// with oauth4webapi, docs/examples/connect_client.py with Authlib) against the real service:
// each starts a grant, the person (this test, as a browser would: the page's cookie, its
// CSRF token, its Origin) presses Allow, the client exchanges the code from the address the
// person came back to, the key reads the person's meals, and the client revokes it.
const run = promisify(execFile);
const EXAMPLES = path.join(PROJECT_ROOT, 'docs', 'examples');
// Debian's python3-authlib is installed for the system's Python (.ci/run), not a pyenv one.
const PYTHON = '/usr/bin/python3';

async function pythonSkip(): Promise<string | false> {
  try {
    await run(PYTHON, ['-c', 'import authlib, requests']);
    return false;
  } catch {
    return `${PYTHON} has no authlib and requests (apt install python3-authlib python3-requests)`;
  }
}
const noPython = await pythonSkip();

describe('docs/connect.md: the third-party examples, run', () => {
  let server: HostApiServer;
  let app: string;
  const work = makeTempDir('connect-examples');
  const redirectUri = 'http://127.0.0.1:3080/callback';

  before(async () => {
    server = await startHostApiServer({ extraArgs: ['--app-port', '0'] }, startInProcessServer);
    app = await appPageUrl(server);
  });

  after(async () => {
    await server?.stop();
    work.remove();
  });

  /** The person, signed in by a sign-in link, opens `authorizeUrl` and presses Allow: where they are sent back. */
  async function personAllows(userId: string, authorizeUrl: string): Promise<string> {
    const asked = new URL(authorizeUrl);
    const cookie = await signedInCookie(server, app, userId);
    return (await allowOnPage(app, cookie, `${asked.pathname}${asked.search}`)).href;
  }

  async function registerApp(name: string): Promise<{ id: string; clientSecret: string }> {
    const made = await hostCall(server, {
      method: 'POST',
      path: '/host/v1/apps',
      json: { name, redirectUris: [redirectUri] },
    });
    assert.equal(made.status, 201, made.text);
    return made.json as { id: string; clientSecret: string };
  }

  async function grantWith(command: readonly string[], env: Record<string, string>, name: string) {
    const registered = await registerApp(name);
    const userId = newUserId('example');
    await server.importMeals(userId, [makeMeal(undefined, { title: 'Lentil soup' })]);
    const environment = cleanEnv({
      ...env,
      MEAL_EXPORT_ISSUER: server.url.replace(/\/$/, ''),
      CLIENT_ID: registered.id,
      CLIENT_SECRET: registered.clientSecret,
      REDIRECT_URI: redirectUri,
    });
    const step = async (...args: string[]) =>
      (await run(command[0] ?? '', [...command.slice(1), ...args], { cwd: work.dir, env: environment })).stdout.trim();
    const callback = await personAllows(userId, await step('start'));
    const token = JSON.parse(await step('finish', callback)) as Record<string, string>;
    assert.equal(token.user_id, userId);
    assert.equal(token.scope, 'meals:read');
    const meals = await getMeals(server, token.access_token ?? '', { lastModifiedSince: '1970-01-01T00:00:00Z' });
    assert.equal(meals.status, 200, meals.text);
    assert.deepEqual(
      (meals.json as { meals: { title: string }[] }).meals.map((meal) => meal.title),
      ['Lentil soup'],
    );
    assert.equal(await step('revoke'), 'revoked');
    const started = performance.now();
    let status = 200;
    while (status !== 401 && performance.now() - started < 1_000) {
      status = (await getMeals(server, token.access_token ?? '', { lastModifiedSince: '1970-01-01T00:00:00Z' })).status;
    }
    assert.equal(status, 401, 'the revoked key is refused within 1 s');
  }

  test('in Node.js, with oauth4webapi', async () => {
    const ca = path.join(server.dir, 'tls', 'cert.pem');
    await grantWith(
      [process.execPath, path.join(EXAMPLES, 'connect-client.mjs')],
      { NODE_EXTRA_CA_CERTS: ca },
      'Node coach',
    );
  });

  test('in Python, with Authlib', { skip: noPython }, async () => {
    const ca = path.join(server.dir, 'tls', 'cert.pem');
    await grantWith([PYTHON, path.join(EXAMPLES, 'connect_client.py')], { MEAL_EXPORT_CA: ca }, 'Python coach');
  });
});
