import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeMeal, encodeTombstone } from '../../src/domain/meal-json.js';
import { renderMealPage } from '../../src/domain/meal-page.js';
import { ENVELOPE_FIELDS, SAMPLE_MEAL } from '../support/contract.js';

const bodyOf = (parts: readonly Buffer[]): Record<string, unknown> =>
  JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;

const MEAL = SAMPLE_MEAL;

describe('the 200 body of GET /v1/meals', () => {
  test('has exactly the seven fields in contract order, the meals as given', () => {
    const items = [encodeMeal(MEAL, MEAL.modifiedAt), encodeTombstone('m_2', MEAL.modifiedAt + 1)];
    const meals = Buffer.from(items.join(','));
    const parts = renderMealPage('u_42', Date.UTC(2025, 0, 1), meals, 2, true, 'abc_-');
    assert.equal(parts[1], meals, 'the meals are sent as given, not copied');
    const body = bodyOf(parts);
    assert.deepEqual(Object.keys(body), ENVELOPE_FIELDS);
    assert.deepEqual(body, {
      ok: true,
      userId: 'u_42',
      lastModifiedSince: '2025-01-01T00:00:00.000Z',
      count: 2,
      meals: items.map((item) => JSON.parse(item)),
      hasMore: true,
      nextCursor: 'abc_-',
    });
  });

  test('an empty page has count 0, no meals, hasMore false and nextCursor null', () => {
    const body = bodyOf(renderMealPage('u_1', 0, Buffer.alloc(0), 0, false, null));
    assert.deepEqual(body, {
      ok: true,
      userId: 'u_1',
      lastModifiedSince: '1970-01-01T00:00:00.000Z',
      count: 0,
      meals: [],
      hasMore: false,
      nextCursor: null,
    });
  });

  test('a user id with quotes and unicode stays valid JSON', () => {
    const body = bodyOf(renderMealPage('u "x" \\ 🍝', 0, Buffer.alloc(0), 0, false, null));
    assert.equal(body['userId'], 'u "x" \\ 🍝');
  });
});
