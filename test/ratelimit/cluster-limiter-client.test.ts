import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isLimiterRequest, LIMITER_ANSWER } from '../../src/ratelimit/cluster-limiter-protocol.js';
import { PROJECT_ROOT } from '../support/project.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cluster-limiter-child.ts');

test("a worker's limiter call (a consume, a peek) gets its own answer, and one the primary never answers fails as 503 unavailable within the bound", async () => {
  const child = fork(CHILD, [], { cwd: PROJECT_ROOT, execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const seen: string[] = [];
  const report = await new Promise<unknown>((resolve, reject) => {
    child.on('message', (message: unknown) => {
      if (isLimiterRequest(message)) {
        if (message.op === 'peek') {
          // A peek asks the primary too, and gets back its standing as it was sent.
          seen.push(`peek ${message.keyId}`);
          const standing = { remaining: 5, resetAt: 456, waitMs: 789 };
          child.send({ type: LIMITER_ANSWER, id: message.id, standing });
          return;
        }
        if (message.op !== 'consume') return;
        seen.push(message.keyId);
        if (message.keyId === 'answered') {
          const decision = { allowed: true, remaining: 7, resetAt: 123, retryAfterMs: 0 };
          child.send({ type: LIMITER_ANSWER, id: message.id, decision });
        }
        return;
      }
      resolve(message);
    });
    child.once('exit', (code) => reject(new Error(`the child exited ${code} without a report`)));
  });
  await new Promise((resolve) => child.once('exit', resolve));
  assert.deepEqual(seen.sort(), ['answered', 'ignored', 'peek peeked']);
  const { results } = report as {
    results: [{ error: string; ms: number }, { value: unknown; ms: number }, { value: unknown; ms: number }];
  };
  assert.equal(results[0].error, '503 unavailable retry-after=1');
  assert.ok(results[0].ms >= 250 && results[0].ms < 10_000, `failed after its 300 ms bound: ${results[0].ms} ms`);
  assert.deepEqual(results[1].value, { allowed: true, remaining: 7, resetAt: 123, retryAfterMs: 0 });
  assert.deepEqual(results[2].value, { remaining: 5, resetAt: 456, waitMs: 789 });
});
