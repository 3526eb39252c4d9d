import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createHttpsTransport,
  createMealExportClient,
  type MealExportClientOptions,
  type SyncOptions,
  type SyncStep,
  type WaitEvent,
} from '../../src/client/index.js';
import { makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { waitFor } from './pull-harness.js';

/**
 * `sync({ follow: true })`: past the end of the feed every poll is a long poll
 * (docs/api.md#changes-as-they-happen-wait), so a change committed by another process is yielded
 * within about a second.
 */

/** The contract's bound between a commit and the answer of a held request, plus the client's share. */
const DELIVERED_WITHIN_MS = 1_500;

interface Timed {
  readonly step: SyncStep;
  /** performance.now() when it was yielded. */
  readonly at: number;
}

/** A follow left running: its steps as they come, its waits, and how it ended. */
function follow(server: ServedApp, key: string, options: SyncOptions, extra: Partial<MealExportClientOptions> = {}) {
  const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
  const waits: WaitEvent[] = [];
  const client = createMealExportClient({
    baseUrl: server.url,
    apiKey: key,
    ...(extra.transport === undefined ? { ca } : {}),
    onWait: (event) => waits.push(event),
    ...extra,
  });
  const stop = new AbortController();
  const steps: Timed[] = [];
  const ended = (async () => {
    try {
      for await (const step of client.sync({ follow: true, signal: stop.signal, ...options })) {
        steps.push({ step, at: performance.now() });
      }
    } finally {
      client.close();
    }
  })();
  // Observed whatever happens, so that a failing test reports its assertion, not this rejection.
  ended.catch(() => undefined);
  const arrivalOf = (id: string) => steps.find((s) => s.step.page.meals.some((m) => m.id === id))?.at;
  return { steps, waits, stop, ended, arrivalOf };
}

async function newUser(server: ServedApp) {
  const userId = newUserId('follow');
  const { key } = await server.createKey(userId);
  return { userId, key };
}

/** Imports one meal with `meals import` (another process); resolves performance.now() once it has exited. */
async function importOne(server: ServedApp, userId: string): Promise<{ id: string; at: number }> {
  const meal = makeMeal();
  await server.importMeals(userId, [meal]);
  return { id: String(meal.id), at: performance.now() };
}

const recent = () => new Date(Date.now() - 60_000);

describe('sync with follow (no interval)', { concurrency: true }, () => {
  let server: ServedApp;
  before(async () => {
    server = await startInProcessServer();
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  test('yields a change imported by `meals import` in another process within about a second of the import, from a held poll', async () => {
    const user = await newUser(server);
    await server.importMeals(user.userId, [makeMeal(), makeMeal()]);
    const running = follow(server, user.key, { wait: 60 });
    // A first sync: the full pass, then the changes since its first answer: none, so held.
    await waitFor('the first sync', () => running.steps.length === 1);
    await sleep(1_000);
    assert.equal(running.steps.length, 1, 'nothing yielded while the poll is held');
    const imported = await importOne(server, user.userId);
    await waitFor('the imported change', () => running.arrivalOf(imported.id) !== undefined, 5_000);
    const delivered = running.steps[1];
    assert.deepEqual(
      delivered?.step.page.meals.map((m) => [m.id, m.deleted]),
      [[imported.id, false]],
    );
    const latency = (delivered?.at ?? Infinity) - imported.at;
    assert.ok(latency <= DELIVERED_WITHIN_MS, `yielded ${Math.round(latency)} ms after the import`);
    assert.equal(delivered?.step.position.followSince, null);
    assert.equal(delivered?.step.position.cursor, delivered?.step.page.nextCursor);

    const stoppedAt = performance.now();
    running.stop.abort();
    await assert.rejects(running.ended, { name: 'AbortError' });
    assert.ok(performance.now() - stoppedAt < 1_000, 'the held poll is dropped at once');
    assert.deepEqual(
      running.waits.filter((w) => w.reason !== 'interval'),
      [],
    );
  });

  test('abort during a held poll of 120 s ends the iteration at once, with an AbortError as sync has', async () => {
    const user = await newUser(server);
    const running = follow(server, user.key, { since: recent() });
    // Nothing since then: the first poll is held for the default wait, the server's 120 s.
    await sleep(1_500);
    assert.equal(running.steps.length, 0);
    const stoppedAt = performance.now();
    running.stop.abort();
    await assert.rejects(running.ended, { name: 'AbortError' });
    const took = performance.now() - stoppedAt;
    assert.ok(took < 500, `ended ${Math.round(took)} ms after the abort`);
  });

  test('a wait that ran out yields the empty page with the position unchanged, and a held poll outlasts the transport timeout', async () => {
    const user = await newUser(server);
    const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
    // No byte for 1 s cuts an ordinary request; a poll held 2 s must not be cut.
    const transport = createHttpsTransport({ ca, timeoutMs: 1_000 });
    const started = performance.now();
    const running = follow(server, user.key, { since: recent(), wait: 2 }, { transport });
    await waitFor('two polls that ran out', () => running.steps.length === 2, 10_000);
    running.stop.abort();
    await assert.rejects(running.ended, { name: 'AbortError' });
    const [first, second] = running.steps;
    assert.ok((first?.at ?? 0) - started >= 1_900, `held for its wait: ${Math.round((first?.at ?? 0) - started)} ms`);
    assert.equal(first?.step.page.count, 0);
    assert.deepEqual(second?.step.position, first?.step.position);
    assert.deepEqual(running.waits, [], 'no retry: the held poll was not cut, and no interval to keep');
  });

  test('a wait outside 1..120 s is refused before any request', async () => {
    const user = await newUser(server);
    for (const wait of [0, 121, 1.5]) {
      const running = follow(server, user.key, { wait });
      await assert.rejects(running.ended, RangeError);
    }
  });
});

describe('sync with follow under the contract interval (3 s)', () => {
  test('follows a few changes for 10 s without ever meeting a 429, each yielded once, in order', async () => {
    const server = await startInProcessServer({ minIntervalMs: 3_000 });
    try {
      const user = await newUser(server);
      // The client's own default pace: 3 s, then what the server announces.
      const running = follow(server, user.key, { since: recent() });
      const imported: Array<{ id: string; at: number }> = [];
      // One change while a poll is held, one just after (its next poll waits for the interval),
      // then two more apart.
      for (const pause of [1_000, 300, 3_500, 2_500]) {
        await sleep(pause);
        imported.push(await importOne(server, user.userId));
      }
      const last = imported.at(-1)?.id ?? '';
      await waitFor('the last change', () => running.arrivalOf(last) !== undefined, 8_000);
      await sleep(1_000);
      running.stop.abort();
      await assert.rejects(running.ended, { name: 'AbortError' });

      assert.deepEqual(
        running.waits.filter((w) => w.reason !== 'interval'),
        [],
        'no 429 (rate_limited) and no retry',
      );
      const yielded = running.steps.flatMap((s) => s.step.page.meals.map((m) => m.id));
      assert.deepEqual(
        yielded,
        imported.map((i) => i.id),
      );
      for (const change of imported) {
        // A change that commits while the next poll waits out the interval comes when it is sent.
        const latency = (running.arrivalOf(change.id) ?? Infinity) - change.at;
        assert.ok(latency <= 3_000 + DELIVERED_WITHIN_MS, `yielded ${Math.round(latency)} ms after its import`);
      }
      assert.ok(running.steps.length <= imported.length + 1, `${running.steps.length} requests`);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
