import assert from 'node:assert/strict';
import { keyInfoSchema } from '../../src/http/key-info-schema.js';
import { ISO_MS_RE } from '../support/contract.js';
import type { TestResponse } from '../support/server.js';
import { assertCommonHeaders } from './http-expect.js';
import { schemaProblems } from './json-schema-check.js';

/**
 * What every answer of GET /v1/key must be (docs/api.md#your-key-and-its-limits), written from
 * the docs: the field orders are spelled out here on purpose.
 */
export const KEY_INFO_FIELDS = ['ok', 'key', 'limits'];
export const KEY_FIELDS = ['id', 'name', 'prefix', 'userId', 'createdAt', 'expiresAt'];
export const LIMITS_FIELDS = ['daily', 'usedToday', 'remainingToday', 'resetsAt', 'minIntervalMs', 'nextAcceptedAt'];

export interface KeyInfoBody {
  readonly ok: true;
  readonly key: {
    readonly id: string;
    readonly name: string;
    readonly prefix: string;
    readonly userId: string;
    readonly createdAt: string;
    readonly expiresAt: string | null;
  };
  readonly limits: {
    readonly daily: number;
    readonly usedToday: number;
    readonly remainingToday: number;
    readonly resetsAt: string;
    readonly minIntervalMs: number;
    readonly nextAcceptedAt: string;
  };
}

/**
 * A 200 of GET /v1/key: exactly the documented fields in order, used + remaining = daily, the
 * instants as the API writes them, and rate-limit headers that agree with the body.
 */
export function assertKeyInfo(res: TestResponse, label = 'key info'): KeyInfoBody {
  assert.equal(res.status, 200, `[${label}] HTTP ${res.status} ${res.text.slice(0, 300)}`);
  assertCommonHeaders(res, label);
  const body = res.json as KeyInfoBody;
  assert.deepEqual(Object.keys(body), KEY_INFO_FIELDS, `[${label}] the top-level fields, in order`);
  assert.deepEqual(Object.keys(body.key), KEY_FIELDS, `[${label}] the key's fields, in order`);
  assert.deepEqual(Object.keys(body.limits), LIMITS_FIELDS, `[${label}] the limits' fields, in order`);
  assert.deepEqual(schemaProblems(body, keyInfoSchema), [], `[${label}] the body vs the KeyInfo schema`);
  const { limits } = body;
  assert.equal(limits.usedToday + limits.remainingToday, limits.daily, `[${label}] used + remaining = daily`);
  for (const instant of [body.key.createdAt, limits.resetsAt, limits.nextAcceptedAt]) {
    assert.match(instant, ISO_MS_RE, label);
  }
  assert.equal(res.headers['x-ratelimit-limit'], String(limits.daily), `[${label}] X-RateLimit-Limit`);
  assert.equal(res.headers['x-ratelimit-remaining'], String(limits.remainingToday), `[${label}] X-RateLimit-Remaining`);
  assert.equal(
    res.headers['x-ratelimit-reset'],
    String(Date.parse(limits.resetsAt) / 1000),
    `[${label}] X-RateLimit-Reset`,
  );
  assert.match(String(res.headers.ratelimit), new RegExp(`^"daily";r=${limits.remainingToday};t=\\d+$`), label);
  return body;
}
