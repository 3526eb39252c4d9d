import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAuthFailureLimiterSuite } from './auth-failure-limiter.suite.js';
import { runRateLimiterSuite } from './rate-limiter.suite.js';

// The limiter suites plan their cases before registering any: a skip list naming a case they
// do not have (renamed since) stops the file instead of skipping nothing.
const open = () => Promise.reject(new Error('no case opens anything here'));

test('a skip list naming no case of a limiter suite is an error that names it', () => {
  const skip = [{ reason: 'renamed since', cases: ['separate keys are limited independently', 'a renamed case'] }];
  assert.throws(
    () => runRateLimiterSuite({ name: 'Adapter', skip, open }),
    /Adapter rate limiter: what every adapter owes: the skip list names no case of this suite: "a renamed case"$/,
  );
  assert.throws(
    () => runAuthFailureLimiterSuite({ name: 'Adapter', skip, open }),
    /the skip list names no case of this suite: "separate keys are limited independently", "a renamed case"$/,
  );
});
