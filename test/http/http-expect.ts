import assert from 'node:assert/strict';
import { liveMealSchema, tombstoneSchema } from '../../src/openapi/schemas.js';
import { errorSchema, mealPageSchema } from '../../src/http/schemas.js';
import { request, type TestResponse } from '../support/server.js';
import { schemaProblems } from './json-schema-check.js';

/**
 * What every test in test/http checks about a response, written from the docs (docs/api.md,
 * docs/errors.md) rather than from src: the field orders and header values are spelled out here on
 * purpose.
 */
export const OLD = '2025-01-01T00:00:00Z';

import { ENVELOPE_FIELDS, ISO_MS_RE, CONTRACT_MEAL_FIELDS as MEAL_FIELDS } from '../support/contract.js';

export { ENVELOPE_FIELDS, ISO_MS_RE, MEAL_FIELDS };
export const WWW_AUTHENTICATE = 'Bearer realm="meal-export"';
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface ApiMeal {
  readonly id: string;
  readonly modifiedAt: string;
  readonly deleted?: boolean;
  readonly [field: string]: unknown;
}

export interface MealPageBody {
  readonly ok: true;
  readonly userId: string;
  readonly lastModifiedSince: string;
  readonly count: number;
  readonly meals: ApiMeal[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
}

export interface ErrorBody {
  readonly error: { readonly message: string; readonly code: string; readonly param?: string };
}

const COMPONENTS = {
  LiveMeal: liveMealSchema,
  Tombstone: tombstoneSchema,
  MealPage: mealPageSchema,
  Error: errorSchema,
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function describe(res: TestResponse): string {
  return `HTTP ${res.status} ${res.text.slice(0, 300)}`;
}

/** Cache-Control, nosniff, HSTS, JSON, no X-Powered-By and no CORS header (docs/api.md#the-rest-of-the-transport). */
export function assertCommonHeaders(res: TestResponse, label = ''): void {
  const where = `[${label}] ${describe(res)}`;
  assert.equal(res.headers['cache-control'], 'no-store', `Cache-Control ${where}`);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', `X-Content-Type-Options ${where}`);
  assert.equal(res.headers['strict-transport-security'], 'max-age=31536000', `Strict-Transport-Security ${where}`);
  assert.equal(res.headers['content-type'], JSON_CONTENT_TYPE, `Content-Type ${where}`);
  assert.equal(res.headers['x-powered-by'], undefined, `X-Powered-By ${where}`);
  const cors = Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));
  assert.deepEqual(cors, [], `no CORS header may be sent ${where}`);
}

/**
 * The contract's error: status, JSON body `{error: {message, code, param?}}` matching the
 * published Error schema, the common headers; `param: null` means "absent".
 */
export function assertError(
  res: TestResponse,
  status: number,
  code: string,
  expected: { param?: string | null; message?: string; label?: string } = {},
): ErrorBody['error'] {
  const where = `[${expected.label ?? ''}] ${describe(res)}`;
  assert.equal(res.status, status, `status ${where}`);
  assertCommonHeaders(res, expected.label);
  assert.deepEqual(schemaProblems(res.json, errorSchema), [], `error body vs the Error schema ${where}`);
  const error = (res.json as ErrorBody).error;
  assert.equal(error.code, code, `code ${where}`);
  assert.ok(error.message.length > 0, `message ${where}`);
  if (expected.param === null) assert.ok(!('param' in error), `param must be absent ${where}`);
  else if (expected.param !== undefined) assert.equal(error.param, expected.param, `param ${where}`);
  if (expected.message !== undefined) assert.equal(error.message, expected.message, `message ${where}`);
  return error;
}

/** A 200 page: the seven envelope fields in order, count = meals.length, the MealPage schema. */
export function assertPage(res: TestResponse, userId?: string): MealPageBody {
  assert.equal(res.status, 200, describe(res));
  assertCommonHeaders(res, 'page');
  const body = res.json as MealPageBody;
  assert.deepEqual(Object.keys(body), ENVELOPE_FIELDS, 'the envelope: exactly seven fields, in contract order');
  assert.deepEqual(schemaProblems(body, mealPageSchema, COMPONENTS), [], 'the page vs the MealPage schema');
  assert.equal(body.ok, true);
  assert.equal(body.count, body.meals.length, 'count equals meals.length');
  assert.match(body.lastModifiedSince, ISO_MS_RE);
  if (userId !== undefined) assert.equal(body.userId, userId);
  if (body.count === 0) assert.equal(body.nextCursor, null, 'nextCursor is null on an empty page');
  else assert.equal(typeof body.nextCursor, 'string', 'nextCursor is a string on a non-empty page');
  return body;
}

/** Ids of a page's meals, in order. */
export const idsOf = (page: MealPageBody): string[] => page.meals.map((m) => m.id);

/** Byte order of two strings (UTF-8), as the contract sorts ids. */
export function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Strictly increasing (modifiedAt, id). */
export function assertFeedOrder(meals: readonly ApiMeal[]): void {
  for (let i = 1; i < meals.length; i += 1) {
    const a = meals[i - 1]!;
    const b = meals[i]!;
    const ordered = a.modifiedAt < b.modifiedAt || (a.modifiedAt === b.modifiedAt && byteCompare(a.id, b.id) < 0);
    assert.ok(ordered, `order broken at ${i}: (${a.modifiedAt}, ${a.id}) then (${b.modifiedAt}, ${b.id})`);
  }
}

/** The next 00:00:00Z after `now`, in epoch seconds. */
export function nextUtcMidnightSeconds(now = Date.now()): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) / 1000;
}

/**
 * Waits past the next UTC midnight when it is less than `withinMs` away: a test that counts a
 * key's requests of today must not watch the day turn under it (the count starts again at 0).
 */
export async function clearOfMidnight(withinMs: number): Promise<void> {
  const untilMidnightMs = nextUtcMidnightSeconds() * 1000 - Date.now();
  if (untilMidnightMs < withinMs) await sleep(untilMidnightMs + 1_000);
}

/** `new Date(now - ms).toISOString()`. */
export const isoAgo = (ms: number): string => new Date(Date.now() - ms).toISOString();

/**
 * GET /v1/meals with every name and value percent-encoded by encodeURIComponent, so that a
 * space is sent as %20 and a plus sign as %2B (URLSearchParams would send a space as "+").
 */
export function getMealsExact(
  server: { host: string; port: number },
  key: string | undefined,
  params: Readonly<Record<string, string>>,
): Promise<TestResponse> {
  const query = Object.entries(params)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  return request(server, { path: `/v1/meals?${query}`, ...(key === undefined ? {} : { key }) });
}
