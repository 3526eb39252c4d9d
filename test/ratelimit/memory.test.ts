import { describe } from 'node:test';
import { createMemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { runRateLimiterSuite } from './rate-limiter.suite.js';

describe('the in-process rate limiter (CONTRACT.md section 4)', () => {
  // One process holds one state: "every instance" is this one limiter.
  runRateLimiterSuite({
    async open(policy) {
      const limiter = createMemoryRateLimiter(policy);
      return { instances: [limiter], close: () => limiter.close() };
    },
  });
});
