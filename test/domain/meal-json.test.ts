import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MEAL_FIELDS, type Meal } from '../../src/domain/meal.js';
import { decodeMeal, encodeMeal, encodeTombstone, LIVE_MEAL_DELETED_SUFFIX } from '../../src/domain/meal-json.js';

const MEAL: Meal = {
  id: 'm_1',
  description: 'rice, "beans" and é',
  title: '',
  type: 'lunch',
  date: Date.UTC(2025, 2, 1, 12, 30),
  caloriesTotal: 512.5,
  proteins_g: null,
  fats_g: 10,
  carbs_g: 0,
  fibers_g: null,
  sodium_mg: 300.5,
  iron_mg: null,
  calcium_mg: 120,
  modifiedAt: Date.UTC(2025, 2, 2, 8, 0, 0, 7),
};

describe('the JSON of a meal', () => {
  test('has the 14 contract fields in MEAL_FIELDS order, dates as YYYY-MM-DDTHH:mm:ss.sssZ', () => {
    const json = JSON.parse(encodeMeal(MEAL)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [...MEAL_FIELDS]);
    assert.deepEqual(MEAL_FIELDS, [
      'id',
      'description',
      'title',
      'type',
      'date',
      'caloriesTotal',
      'proteins_g',
      'fats_g',
      'carbs_g',
      'fibers_g',
      'sodium_mg',
      'iron_mg',
      'calcium_mg',
      'modifiedAt',
    ]);
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
