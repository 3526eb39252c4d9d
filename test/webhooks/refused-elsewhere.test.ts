import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliJson, runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { makeMeal, newUserId, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import { createLoopbackEndpoint, makeCertificate, type Receiver, startReceiver } from './receiver.js';

/**
 * docs/webhooks.md#where-calls-may-go: a process whose flags refuse an endpoint's address
 * leaves the endpoint's events to a process that may call it, instead of putting them on the
 * retry schedule; when none may, the event waits and `webhooks list` says why. Two `serve`
 * processes on one SQLite store, as the README's `npm start` and a second one with
 * `--webhook-allow-private` beside it run.
 */
describe('an endpoint one process may not call and another may', () => {
  const folder = makeTempDir('refused-elsewhere');
  let receiver: Receiver;
  let strict: TestServer;
  let allowing: TestServer | undefined;
  let caFile: string;

  before(async () => {
    const certificate = await makeCertificate();
    caFile = path.join(folder.dir, 'receiver.pem');
    writeFileSync(caFile, certificate.cert);
    receiver = await startReceiver(certificate, (response) => response.writeHead(204).end());
    strict = await startTestServer({ dataDir: path.join(folder.dir, 'data') });
  });

  after(async () => {
    await allowing?.stop();
    await strict?.stop();
    await receiver?.close();
    folder.remove();
  });

  const attemptsOf = (id: string) =>
    cliJson<{ status: number | null; error: string | null }[]>(['webhooks', 'attempts', id, '--db', strict.db]);

  test('alone, the strict process refuses once, keeps the event due and its schedule unspent, and webhooks list says why', async () => {
    const userId = newUserId('refused');
    const endpointId = await createLoopbackEndpoint(receiver, userId, strict.db);
    await strict.importMeals(userId, [makeMeal()]);
    await waitFor('the refusal recorded', async () => (await attemptsOf(endpointId)).length === 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.deepEqual(
      (await attemptsOf(endpointId)).map((attempt) => [attempt.status, attempt.error]),
      [[null, 'refused_address']],
      'refused once, not again at once',
    );
    const list = await runCli(['webhooks', 'list', '--user', userId, '--db', strict.db]);
    assert.match(list.stdout, /refused_address/);
    assert.match(list.stdout, /the changes wait for a process that may call it \(--webhook-allow-private\)/);
    assert.equal(receiver.calls.length, 0);

    // A process that may call it takes the event over at once: delivered, no retry spent.
    allowing = await startTestServer({
      dataDir: path.join(folder.dir, 'data'),
      extraArgs: ['--webhook-allow-private', '--webhook-ca', caFile],
    });
    await waitFor('the call from the allowing process', () => receiver.calls.length === 1, 10_000);
    await waitFor('its record', async () => (await attemptsOf(endpointId))[0]?.status === 204, 5_000);
    const again = await runCli(['webhooks', 'list', '--user', userId, '--db', strict.db]);
    assert.doesNotMatch(again.stdout, /the changes wait for a process/);
  });

  test('with both running, each change is delivered within 3 s, whichever process claims it first', async () => {
    const userId = newUserId('both');
    const endpointId = await createLoopbackEndpoint(receiver, userId, strict.db);
    const before = receiver.calls.length;
    // The strict process may claim first and refuse: the allowing one hears of the release at once.
    for (let change = 0; change < 5; change += 1) {
      const started = performance.now();
      await strict.importMeals(userId, [makeMeal()]);
      await waitFor(`change ${change} delivered`, () => receiver.calls.length === before + change + 1, 3_000);
      assert.ok(performance.now() - started < 3_000);
      await waitFor('recorded', async () => (await attemptsOf(endpointId))[0]?.status === 204, 5_000);
    }
  });
});
