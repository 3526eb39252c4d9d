import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MEAL_FIELDS } from '../../src/domain/meal.js';
import { decodeMeal, encodeMeal, encodeTombstone, LIVE_MEAL_DELETED_SUFFIX } from '../../src/domain/meal-json.js';
import { CONTRACT_MEAL_FIELDS, SAMPLE_MEAL } from '../support/contract.js';

const MEAL = SAMPLE_MEAL;

describe('the JSON of a meal', () => {
  test('is byte for byte what JSON.stringify writes for the same fields, awkward values included', () => {
    const awkward = [
      MEAL,
      { ...MEAL, caloriesTotal: 1e21, proteins_g: 1e-7, fats_g: -0, carbs_g: 0.1 + 0.2, fibers_g: 123456789.125 },
      { ...MEAL, id: 'a"b\\c', title: 'line\nbreak\ttab\u0001\u2028', description: '🍝 pasta, "al dente"' },
    ];
    for (const meal of awkward) {
      const expected = JSON.stringify({
        id: meal.id,
        description: meal.description,
        title: meal.title,
        type: meal.type,
        date: new Date(meal.date).toISOString(),
        caloriesTotal: meal.caloriesTotal,
        proteins_g: meal.proteins_g,
        fats_g: meal.fats_g,
        carbs_g: meal.carbs_g,
        fibers_g: meal.fibers_g,
        sodium_mg: meal.sodium_mg,
        iron_mg: meal.iron_mg,
        calcium_mg: meal.calcium_mg,
        modifiedAt: new Date(meal.modifiedAt).toISOString(),
      });
      assert.equal(encodeMeal(meal, meal.modifiedAt), expected);
    }
  });

  test('has the 14 contract fields in MEAL_FIELDS order, dates as YYYY-MM-DDTHH:mm:ss.sssZ', () => {
    const json = JSON.parse(encodeMeal(MEAL, MEAL.modifiedAt)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [...MEAL_FIELDS]);
    assert.deepEqual(MEAL_FIELDS, CONTRACT_MEAL_FIELDS);
    assert.equal(json.date, '2025-03-01T12:30:00.000Z');
    assert.equal(json.modifiedAt, '2025-03-02T08:00:00.007Z');
    assert.equal(json.title, '');
    assert.equal(json.proteins_g, null);
    assert.equal(json.carbs_g, 0);
  });

  test('decodes back to the same meal', () => {
    assert.deepEqual(decodeMeal(encodeMeal(MEAL, MEAL.modifiedAt)), MEAL);
  });

  test('of a tombstone is exactly id, modifiedAt and deleted true', () => {
    const json = JSON.parse(encodeTombstone('m_9', Date.UTC(2025, 0, 1))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['id', 'modifiedAt', 'deleted']);
    assert.deepEqual(json, { id: 'm_9', modifiedAt: '2025-01-01T00:00:00.000Z', deleted: true });
  });

  test('of a live meal with includeDeleted ends in deleted false after modifiedAt', () => {
    const text = encodeMeal(MEAL, MEAL.modifiedAt).slice(0, -1) + LIVE_MEAL_DELETED_SUFFIX;
    const json = JSON.parse(text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [...MEAL_FIELDS, 'deleted']);
    assert.equal(json.deleted, false);
  });
});
