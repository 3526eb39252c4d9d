import { createClusterLimiters } from '../../src/ratelimit/cluster-limiter-client.js';
import { AppError } from '../../src/errors.js';

/**
 * Run by cluster-limiter-client.test.ts as a child with an IPC channel, in a worker's place:
 * asks its parent (the "primary") for two decisions at once and reports what came back.
 */
const { limiter } = createClusterLimiters({ minIntervalMs: 0, dailyLimit: 1000 }, 300);
const outcome = (call: Promise<unknown>, started: number) =>
  call.then(
    (value) => ({ value, ms: Date.now() - started }),
    (error: unknown) => ({
      error:
        error instanceof AppError
          ? `${error.status} ${error.code} retry-after=${error.headers['retry-after']}`
          : String(error),
      ms: Date.now() - started,
    }),
  );
const started = Date.now();
const results = await Promise.all([
  outcome(limiter.consume('ignored', started), started),
  outcome(limiter.consume('answered', started), started),
  // Asked at an instant the test knows: the primary's answer says it read 40 ms later.
  outcome(limiter.peek('peeked', 1_000_000), started),
]);
process.send?.({ results }, undefined, {}, () => process.disconnect());
