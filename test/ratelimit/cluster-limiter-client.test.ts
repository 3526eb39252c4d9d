import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isLimiterRequest, LIMITER_ANSWER } from '../../src/ratelimit/cluster-limiter-protocol.js';
import { PROJECT_ROOT } from '../support/project.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cluster-limiter-child.ts');

test("a worker's limiter calls (a consume, a peek) asked together leave in one message and each gets its own answer; one the primary never answers fails as 503 unavailable within the bound", async () => {
  const child = fork(CHILD, [], { cwd: PROJECT_ROOT, execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const seen: string[] = [];
  let messages = 0;
  const report = await new Promise<unknown>((resolve, reject) => {
    child.on('message', (message: unknown) => {
      if (!isLimiterRequest(message)) {
        resolve(message);
        return;
      }
      messages += 1;
      const replies = [];
      for (const question of message.questions) {
        if (question.op === 'peek') {
          // A peek asks the primary too, which reads it 40 ms after the worker's instant.
          seen.push(`peek ${question.keyId}`);
          replies.push({ id: question.id, standing: { remaining: 5, resetAt: 456, waitMs: 789 }, at: 1_000_040 });
        } else if (question.op === 'consume') {
          seen.push(question.keyId);
          if (question.keyId === 'answered') {
            replies.push({ id: question.id, decision: { allowed: true, remaining: 7, resetAt: 123, retryAfterMs: 0 } });
          }
        }
      }
      // The answers come back in another order than asked, in one message: each finds its own.
      child.send({ type: LIMITER_ANSWER, replies: replies.reverse() });
    });
    child.once('exit', (code) => reject(new Error(`the child exited ${code} without a report`)));
  });
  await new Promise((resolve) => child.once('exit', resolve));
  assert.deepEqual(seen.sort(), ['answered', 'ignored', 'peek peeked']);
  assert.equal(messages, 1, 'the three questions of one turn left in one message');
  const { results } = report as {
    results: [{ error: string; ms: number }, { value: unknown; ms: number }, { value: unknown; ms: number }];
  };
  assert.equal(results[0].error, '503 unavailable retry-after=1');
  assert.ok(results[0].ms >= 250 && results[0].ms < 10_000, `failed after its 300 ms bound: ${results[0].ms} ms`);
  assert.deepEqual(results[1].value, { allowed: true, remaining: 7, resetAt: 123, retryAfterMs: 0 });
  // Its wait counted from the worker's instant: it ends where the primary's state says.
  assert.deepEqual(results[2].value, { remaining: 5, resetAt: 456, waitMs: 829 });
});
