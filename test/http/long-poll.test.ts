import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  makeMeal,
  newUserId,
  request,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../support/server.js';
import { sampleSum, scrape, untilHeld } from '../support/metrics.js';
import { assertPage, ENVELOPE_FIELDS, type MealPageBody, OLD, sleep } from './http-expect.js';

/**
 * Long poll (docs/api.md#changes-as-they-happen-wait): an empty page is held until a change of its
 * user that belongs in it commits, whoever commits it, then answered within 1 s; one request for
 * the limits; one held request per key; `--max-waiting`; SIGTERM answers every held request.
 */

/** The contract's bound between a commit and the answer of a request held for it. */
const WITHIN_MS = 1_000;
const FUTURE = '2100-01-01T00:00:00Z';

interface Timed {
  readonly response: TestResponse;
  /** performance.now() when the answer had fully arrived. */
  readonly at: number;
  /** Ms from the request's start to its answer. */
  readonly ms: number;
}

function timedGet(server: TestServer, key: string, query: string, method = 'GET'): Promise<Timed> {
  const started = performance.now();
  return request(server, { method, path: `/v1/meals?${query}`, key }).then((response) => {
    const at = performance.now();
    return { response, at, ms: at - started };
  });
}

async function newKey(server: TestServer, userId = newUserId('lp')): Promise<{ userId: string; key: string }> {
  const { key } = await server.createKey(userId);
  return { userId, key };
}

/** Imports meals with `meals import` (another process); resolves performance.now() once it has exited. */
async function importElsewhere(server: TestServer, userId: string, meals: readonly object[]): Promise<number> {
  await server.importMeals(userId, meals);
  return performance.now();
}

function page(timed: Timed): MealPageBody {
  assert.equal(timed.response.status, 200, timed.response.text);
  return timed.response.json as MealPageBody;
}

describe('long poll on the embedded default (SQLite)', { concurrency: true }, () => {
  // Beside the cases below, on a server of its own: it takes 35 s.
  describe('a long hold', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(async () => {
      assert.equal(await server.stop(), 0);
    });

    test(
      'a request held longer than the 30 s request bound and the 25 s stalled-reader bound is answered, not cut',
      { timeout: 60_000 },
      async () => {
        const { key } = await newKey(server);
        const answer = await timedGet(server, key, `lastModifiedSince=${FUTURE}&wait=35`);
        assert.equal(page(answer).count, 0);
        assert.ok(answer.ms >= 34_900 && answer.ms < 35_000 + WITHIN_MS, `answered after ${Math.round(answer.ms)} ms`);
      },
    );
  });

  // One case at a time, so that the server's count of held requests (/metrics) says when a
  // case's own request is held: it writes only then, not after a guess of how long that takes.
  describe('the cases', { concurrency: false }, () => {
    let server: TestServer;
    const held = (count: number) => untilHeld(server.adminUrl, count);
    before(async () => {
      server = await startTestServer({ adminPort: 0 });
    });
    after(async () => {
      assert.equal(await server.stop(), 0);
    });

    test('a page with items is answered at once, as without wait', async () => {
      const { userId, key } = await newKey(server);
      await server.importMeals(userId, [makeMeal()]);
      const answer = await timedGet(server, key, `lastModifiedSince=${OLD}&wait=60`);
      assert.equal(page(answer).count, 1);
      assert.ok(answer.ms < 2_000, `answered after ${Math.round(answer.ms)} ms`);
    });

    test('an empty page is held until a meals import in another process commits a change, then answered within 1 s with it', async () => {
      const { userId, key } = await newKey(server);
      const waiting = timedGet(server, key, `lastModifiedSince=${OLD}&wait=60`);
      await held(1);
      await sleep(1_000);
      const meal = makeMeal();
      const importedAt = await importElsewhere(server, userId, [meal]);
      const answer = await waiting;
      const body = page(answer);
      assertPage(answer.response);
      assert.deepEqual(Object.keys(body), [...ENVELOPE_FIELDS], 'the wait is never in the answer');
      assert.deepEqual(
        body.meals.map((m) => m.id),
        [meal.id],
      );
      assert.ok(answer.ms > 1_000, 'held while nothing changed');
      assert.ok(
        answer.at - importedAt <= WITHIN_MS,
        `answered ${Math.round(answer.at - importedAt)} ms after the import`,
      );
    });

    test('a request resuming from its cursor is held, and answered with only the changes after it', async () => {
      const { userId, key } = await newKey(server);
      await server.importMeals(userId, [makeMeal(), makeMeal()]);
      const first = page(await timedGet(server, key, `lastModifiedSince=${OLD}`));
      assert.equal(first.count, 2);
      const cursor = encodeURIComponent(first.nextCursor ?? '');
      const waiting = timedGet(server, key, `lastModifiedSince=${OLD}&cursor=${cursor}&wait=60`);
      await held(1);
      const next = makeMeal();
      const importedAt = await importElsewhere(server, userId, [next]);
      const answer = await waiting;
      assert.deepEqual(
        page(answer).meals.map((m) => m.id),
        [next.id],
      );
      assert.ok(answer.at - importedAt <= WITHIN_MS);
    });

    test("a deletion wakes an includeDeleted waiter with the tombstone; a waiter without includeDeleted, and another user's change, are not answered before their wait", async () => {
      const { userId, key } = await newKey(server);
      const { key: otherKeyOfUser } = await server.createKey(userId);
      const { key: otherUsersKey } = await newKey(server);
      const meal = makeMeal();
      await server.importMeals(userId, [meal]);
      const after = page(await timedGet(server, key, `lastModifiedSince=${OLD}&includeDeleted=true`));
      const cursor = encodeURIComponent(after.nextCursor ?? '');

      const withDeleted = timedGet(
        server,
        key,
        `lastModifiedSince=${OLD}&cursor=${cursor}&includeDeleted=true&wait=30`,
      );
      const liveOnly = timedGet(server, otherKeyOfUser, `lastModifiedSince=${OLD}&cursor=${cursor}&wait=4`);
      const otherUser = timedGet(server, otherUsersKey, `lastModifiedSince=${OLD}&wait=4`);
      await held(3);
      await server.deleteMeal(userId, String(meal.id));
      const deletedAt = performance.now();

      const tombstone = await withDeleted;
      assert.deepEqual(
        page(tombstone).meals.map((m) => [m.id, m.deleted]),
        [[meal.id, true]],
      );
      assert.ok(tombstone.at - deletedAt <= WITHIN_MS);
      for (const waiter of [await liveOnly, await otherUser]) {
        assert.equal(page(waiter).count, 0);
        assert.ok(waiter.ms >= 3_900, `held for its whole wait: ${Math.round(waiter.ms)} ms`);
        assert.ok(waiter.ms < 4_000 + WITHIN_MS, `answered when its wait ended: ${Math.round(waiter.ms)} ms`);
      }
    });

    test('one held request per key: a new accepted request of the key answers the held one at once, as its page stands', async () => {
      const { key } = await newKey(server);
      const first = timedGet(server, key, `lastModifiedSince=${FUTURE}&wait=60`);
      await held(1);
      const secondStarted = performance.now();
      const second = timedGet(server, key, `lastModifiedSince=${FUTURE}&wait=2`);
      const firstAnswer = await first;
      assert.equal(page(firstAnswer).count, 0);
      assert.ok(firstAnswer.at - secondStarted < WITHIN_MS, 'answered once the new request was accepted');
      const secondAnswer = await second;
      assert.ok(secondAnswer.ms >= 1_900, `the new request is held in turn: ${Math.round(secondAnswer.ms)} ms`);
    });

    test('HEAD with wait is held alike, and answers without a body', async () => {
      const { userId, key } = await newKey(server);
      const quiet = await timedGet(server, key, `lastModifiedSince=${FUTURE}&wait=1`, 'HEAD');
      assert.equal(quiet.response.status, 200);
      assert.equal(quiet.response.raw.length, 0);
      assert.ok(quiet.ms >= 950, `held for its wait: ${Math.round(quiet.ms)} ms`);
      const waiting = timedGet(server, key, `lastModifiedSince=${OLD}&wait=60`, 'HEAD');
      await held(1);
      const importedAt = await importElsewhere(server, userId, [makeMeal()]);
      const answer = await waiting;
      assert.equal(answer.response.status, 200);
      assert.equal(answer.response.raw.length, 0);
      assert.ok(answer.at - importedAt <= WITHIN_MS);
    });

    test('a malformed wait is 400 invalid_parameter naming wait, after the other parameters', async () => {
      const { key } = await newKey(server);
      for (const value of ['0', '121', '+5', '1.5', 'abc', '']) {
        const res = await request(server, { path: `/v1/meals?lastModifiedSince=${OLD}&wait=${value}`, key });
        assert.equal(res.status, 400, value);
        assert.deepEqual((res.json as { error: { param: string } }).error.param, 'wait', value);
      }
      const limitFirst = await request(server, { path: `/v1/meals?lastModifiedSince=${OLD}&wait=0&limit=0`, key });
      assert.equal((limitFirst.json as { error: { param: string } }).error.param, 'limit');
    });
  });
});

describe('long poll: limits', () => {
  test('a held request counts once, when accepted, with the rate-limit headers of its acceptance; a request of the key refused with 429 meanwhile does not answer it; after a hold of 3 s the next one is accepted at once', async () => {
    const server = await startTestServer({ minIntervalMs: 3_000, dailyLimit: 10, adminPort: 0 });
    try {
      const { key } = await newKey(server);
      const held = timedGet(server, key, `lastModifiedSince=${FUTURE}&wait=4`);
      await untilHeld(server.adminUrl, 1);
      const refused = await request(server, { path: `/v1/meals?lastModifiedSince=${FUTURE}`, key });
      assert.equal(refused.status, 429);
      const answer = await held;
      assert.equal(page(answer).count, 0);
      assert.ok(answer.ms >= 3_900, `not answered by the refused request: ${Math.round(answer.ms)} ms`);
      assert.equal(answer.response.headers['x-ratelimit-remaining'], '9');
      const next = await request(server, { path: `/v1/meals?lastModifiedSince=${FUTURE}`, key });
      assert.equal(next.status, 200, 'the interval is measured between acceptances');
      assert.equal(next.headers['x-ratelimit-remaining'], '8');
    } finally {
      await server.stop();
    }
  });

  test('past --max-waiting a request with wait is answered at once, as without it; /metrics counts the held ones', async () => {
    const server = await startTestServer({ extraArgs: ['--max-waiting', '1'], adminPort: 0 });
    try {
      const first = await newKey(server);
      const second = await newKey(server);
      const held = timedGet(server, first.key, `lastModifiedSince=${FUTURE}&wait=3`);
      await untilHeld(server.adminUrl, 1);
      const atOnce = await timedGet(server, second.key, `lastModifiedSince=${FUTURE}&wait=60`);
      assert.equal(page(atOnce).count, 0);
      assert.ok(atOnce.ms < 1_500, `answered at once: ${Math.round(atOnce.ms)} ms`);
      assert.ok((await held).ms >= 2_900, 'the first stays held');
      const after = (await scrape(server.adminUrl)).text;
      assert.equal(sampleSum(after, 'meal_export_long_polls_held'), 0);
      // The latency histogram counts the server's work, not the 3 s the request was held.
      assert.equal(sampleSum(after, 'meal_export_http_request_duration_seconds_bucket', { le: '1' }), 2);
    } finally {
      await server.stop();
    }
  });
});

describe('long poll: shutdown', () => {
  test('SIGTERM answers every held request at once with its page as it stands, then drains and exits 0', async () => {
    const server = await startTestServer({ adminPort: 0 });
    const keys = await Promise.all([newKey(server), newKey(server), newKey(server)]);
    const held = keys.map(({ key }) => timedGet(server, key, `lastModifiedSince=${OLD}&wait=60`));
    await untilHeld(server.adminUrl, 3);
    const signalled = performance.now();
    const exited = server.stop();
    for (const answer of await Promise.all(held)) {
      assert.equal(page(answer).count, 0);
      assert.ok(answer.at - signalled < 2_000, `answered ${Math.round(answer.at - signalled)} ms after SIGTERM`);
    }
    assert.equal(await exited, 0);
    assert.match(server.logs(), /shutting down/);
  });
});

describe('long poll with --workers 2', () => {
  test('a request held by a worker is answered within 1 s of a meals import in another process', async () => {
    const server = await startTestServer({ workers: 2 });
    try {
      const users = await Promise.all([newKey(server), newKey(server), newKey(server), newKey(server)]);
      // Four requests on connections of their own: both workers hold some.
      const held = users.map(({ key }) => timedGet(server, key, `lastModifiedSince=${OLD}&wait=60`));
      await sleep(1_000);
      const importedAt = await Promise.all(users.map(({ userId }) => importElsewhere(server, userId, [makeMeal()])));
      const answers = await Promise.all(held);
      answers.forEach((answer, i) => {
        assert.equal(page(answer).count, 1);
        assert.ok(answer.at - (importedAt[i] ?? 0) <= WITHIN_MS);
      });
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
