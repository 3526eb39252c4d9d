import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MEAL_FIELDS } from '../../src/domain/meal.js';
import { decodeMeal, encodeMeal, encodeTombstone, LIVE_MEAL_DELETED_SUFFIX } from '../../src/domain/meal-json.js';
import { CONTRACT_MEAL_FIELDS, SAMPLE_MEAL } from '../support/contract.js';

const MEAL = SAMPLE_MEAL;

describe('the JSON of a meal', () => {
  test('has the 14 contract fields in MEAL_FIELDS order, dates as YYYY-MM-DDTHH:mm:ss.sssZ', () => {
    const json = JSON.parse(encodeMeal(MEAL)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [...MEAL_FIELDS]);
    assert.deepEqual(MEAL_FIELDS, CONTRACT_MEAL_FIELDS);
    assert.equal(json.date, '2025-03-01T12:30:00.000Z');
    assert.equal(json.modifiedAt, '2025-03-02T08:00:00.007Z');
    assert.equal(json.title, '');
    assert.equal(json.proteins_g, null);
    assert.equal(json.carbs_g, 0);
  });

  test('decodes back to the same meal', () => {
    assert.deepEqual(decodeMeal(encodeMeal(MEAL)), MEAL);
  });

  test('of a tombstone is exactly id, modifiedAt and deleted true', () => {
    const json = JSON.parse(encodeTombstone('m_9', Date.UTC(2025, 0, 1))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['id', 'modifiedAt', 'deleted']);
    assert.deepEqual(json, { id: 'm_9', modifiedAt: '2025-01-01T00:00:00.000Z', deleted: true });
  });

  test('of a live meal with includeDeleted ends in deleted false after modifiedAt', () => {
    const text = encodeMeal(MEAL).slice(0, -1) + LIVE_MEAL_DELETED_SUFFIX;
    const json = JSON.parse(text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [...MEAL_FIELDS, 'deleted']);
    assert.equal(json.deleted, false);
  });
});
