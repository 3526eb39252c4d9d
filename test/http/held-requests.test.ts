import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createHeldRequests, HELD_KEY_CHECK_SLICE, type HeldRequest } from '../../src/http/held-requests.js';
import type { ChangeSignals, FeedWatcher } from '../../src/storage/change-signals.js';

// The held requests' state machine (http/held-requests.ts) with the store and the answers in the
// test's hands: a key refused while its request is held, during a read of its page, after the
// request was answered, while its refusal is being sent. The same path end to end, over TLS:
// test/http/long-poll-refused.test.ts.

const CHECK_MS = 20;
const tick = (ms = CHECK_MS * 3) => new Promise((resolve) => setTimeout(resolve, ms));

function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Held requests whose page reads, key checks and refusals the test answers or watches. */
function harness() {
  let watcher: FeedWatcher | undefined;
  const signals: ChangeSignals = {
    watchFeeds(watching) {
      watcher = watching;
      return { ready: Promise.resolve(), interested: () => undefined, close: () => undefined };
    },
  };
  const reads: { held: HeldRequest; final: boolean; answer: (answered: boolean) => void }[] = [];
  const refused: HeldRequest[] = [];
  const asked: string[][] = [];
  /** The keys the store still accepts; undefined: it does not answer. */
  let accepted: ReadonlySet<string> | undefined = new Set();
  let refusal = deferred<void>();
  refusal.resolve();
  const held = createHeldRequests<HeldRequest>({
    capacity: 100_000,
    signals,
    keyCheckMs: CHECK_MS,
    readAgain: (request, final) => {
      const answer = deferred<boolean>();
      reads.push({ held: request, final, answer: answer.resolve });
      return answer.promise;
    },
    acceptedKeys: async (keyIds) => {
      asked.push([...keyIds]);
      return accepted;
    },
    refuse: (request) => {
      refused.push(request);
      return refusal.promise;
    },
  });
  const request = (keyId: string): HeldRequest => ({
    keyId,
    userId: `user-of-${keyId}`,
    deadline: Date.now() + 60_000,
    done: false,
    reading: false,
    again: 0,
  });
  return {
    held,
    reads,
    refused,
    asked,
    request,
    accept: (keys: ReadonlySet<string> | undefined) => (accepted = keys),
    holdRefusal: () => (refusal = deferred<void>()),
    releaseRefusal: () => refusal.resolve(),
    moved: (userIds: string[]) => watcher?.moved(userIds),
    /** Answers every read with its page, and ends the held requests. */
    async end() {
      const closed = held.releaseAll();
      for (let i = 0; i < 10 && held.size > 0; i += 1) {
        for (const read of reads.splice(0)) read.answer(true);
        await tick(5);
      }
      await closed;
    },
  };
}

describe('held requests whose key is refused', { timeout: 10_000 }, () => {
  test('a key still accepted is held; one refused is answered with the refusal, once', async () => {
    const h = harness();
    const [kept, gone] = [h.request('k-kept'), h.request('k-gone')];
    h.held.hold(kept, h.held.epoch());
    h.held.hold(gone, h.held.epoch());
    h.accept(new Set(['k-kept']));
    await tick();
    assert.deepEqual(h.refused, [gone]);
    assert.equal(gone.done, true);
    assert.equal(kept.done, false);
    assert.equal(h.held.size, 1);
    await h.end();
  });

  test('a store that does not answer refuses nobody', async () => {
    const h = harness();
    const one = h.request('k-1');
    h.held.hold(one, h.held.epoch());
    h.accept(undefined);
    await tick();
    assert.deepEqual(h.refused, []);
    assert.equal(h.held.size, 1);
    await h.end();
  });

  test('refused during a read of its page: answered with the refusal once the read ends, not with the page', async () => {
    const h = harness();
    const one = h.request('k-read');
    h.accept(new Set(['k-read']));
    h.held.hold(one, h.held.epoch());
    h.moved([one.userId]);
    assert.equal(h.reads.length, 1);
    h.accept(new Set());
    await tick();
    assert.deepEqual(h.refused, [], 'not while the read is under way');
    // A later wake, even a final one, does not take the refusal's place.
    h.held.supersede('k-read');
    h.reads[0]?.answer(false);
    await tick(5);
    assert.deepEqual(h.refused, [one]);
    assert.equal(h.reads.length, 1, 'no read after the refusal');
    assert.equal(one.done, true);
    await h.end();
  });

  test('answered before the check comes back: not refused', async () => {
    const h = harness();
    const one = h.request('k-answered');
    h.accept(new Set(['k-answered']));
    h.held.hold(one, h.held.epoch());
    h.held.supersede('k-answered');
    h.reads[0]?.answer(true);
    h.accept(new Set());
    await tick();
    assert.equal(one.done, true);
    assert.deepEqual(h.refused, []);
    assert.equal(h.held.size, 0);
  });

  test('its client gone while the refusal is sent: forgotten once, the count stays right', async () => {
    const h = harness();
    h.holdRefusal();
    const one = h.request('k-dropped');
    h.held.hold(one, h.held.epoch());
    await tick();
    assert.deepEqual(h.refused, [one]);
    h.held.drop(one);
    h.releaseRefusal();
    await tick(5);
    assert.equal(h.held.size, 0);
    h.accept(new Set(['k-next']));
    h.held.hold(h.request('k-next'), h.held.epoch());
    assert.equal(h.held.size, 1);
    await h.end();
  });

  test('many held keys are asked a slice at a time; nothing is asked once none is held', async () => {
    const h = harness();
    const count = HELD_KEY_CHECK_SLICE * 2 + 5;
    const keys = new Set(Array.from({ length: count }, (_, n) => `k-${n}`));
    h.accept(keys);
    for (const keyId of keys) h.held.hold(h.request(keyId), h.held.epoch());
    await tick(CHECK_MS * 2);
    assert.deepEqual(
      h.asked.slice(0, 3).map((slice) => slice.length),
      [HELD_KEY_CHECK_SLICE, HELD_KEY_CHECK_SLICE, 5],
    );
    await h.end();
    const before = h.asked.length;
    await tick();
    assert.equal(h.asked.length, before, 'the check stopped with the last held request');
  });
});
