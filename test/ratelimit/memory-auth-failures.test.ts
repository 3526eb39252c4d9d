import { describe } from 'node:test';
import { createMemoryAuthFailureLimiter } from '../../src/ratelimit/memory-auth-failures.js';
import { runAuthFailureLimiterSuite } from './auth-failure-limiter.suite.js';

describe('the in-process brute-force guard (CONTRACT.md section 3)', () => {
  // One process holds one state: "every instance" is this one guard.
  runAuthFailureLimiterSuite({
    async open(policy) {
      const guard = createMemoryAuthFailureLimiter(policy);
      return { instances: [guard], close: () => guard.close() };
    },
  });
});
