import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Meal, MEAL_FIELDS } from '../../src/domain/meal.js';
import {
  decodeMeal,
  encodeMeal,
  encodeMealAt,
  encodeMealContent,
  encodeTombstone,
  isStoredMeal,
  LIVE_MEAL_DELETED_SUFFIX,
} from '../../src/domain/meal-json.js';
import { CONTRACT_MEAL_FIELDS, SAMPLE_MEAL } from '../support/contract.js';

const MEAL = SAMPLE_MEAL;

describe('the JSON of a meal', () => {
  test('is byte for byte what JSON.stringify writes for the same fields, awkward values included', () => {
    const awkward = [
      MEAL,
      { ...MEAL, utcOffset: null },
      { ...MEAL, utcOffset: '+05:45' },
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
        utcOffset: meal.utcOffset,
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

  test('has the 15 contract fields in MEAL_FIELDS order, dates as YYYY-MM-DDTHH:mm:ss.sssZ', () => {
    const json = JSON.parse(encodeMeal(MEAL, MEAL.modifiedAt)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [...MEAL_FIELDS]);
    assert.deepEqual(MEAL_FIELDS, CONTRACT_MEAL_FIELDS);
    assert.equal(json.date, '2025-03-01T12:30:00.000Z');
    assert.equal(json.utcOffset, '-08:00');
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

  test("of a tombstone is JSON.stringify's text, the id escaped as JSON escapes it, whatever the year", () => {
    const ids = ['m_9', 'quote " back \\ slash', 'tab\there', '🍕', '\u2028', 'x'.repeat(200)];
    const instants = [Date.UTC(2025, 0, 1), new Date(0).setUTCFullYear(0, 0, 1), 8.64e15];
    for (const id of ids) {
      for (const at of instants) {
        const expected = JSON.stringify({ id, modifiedAt: new Date(at).toISOString(), deleted: true });
        assert.equal(encodeTombstone(id, at), expected);
      }
    }
  });

  test('of a live meal with includeDeleted ends in deleted false after modifiedAt', () => {
    const text = encodeMeal(MEAL, MEAL.modifiedAt).slice(0, -1) + LIVE_MEAL_DELETED_SUFFIX;
    const json = JSON.parse(text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), [...MEAL_FIELDS, 'deleted']);
    assert.equal(json.deleted, false);
  });

  test('is encodeMealContent then encodeMealAt: the content before modifiedAt, then the meal on the clock', () => {
    const content = encodeMealContent(MEAL);
    assert.equal(encodeMealAt(content, MEAL.modifiedAt), encodeMeal(MEAL, MEAL.modifiedAt));
    assert.ok(content.endsWith('"modifiedAt":"'));
  });

  test('of a stored meal is the same meal only when every field is equal: null is not 0, "" is not text, 1 ms apart is new', () => {
    const stored = encodeMeal(MEAL, MEAL.modifiedAt);
    assert.equal(isStoredMeal(stored, encodeMealContent(MEAL)), true);
    const other: Meal = { ...MEAL, modifiedAt: Date.UTC(2030, 0, 1) };
    assert.equal(isStoredMeal(encodeMeal(other, other.modifiedAt), encodeMealContent(MEAL)), true, 'modifiedAt aside');
    const changes: Partial<Meal>[] = [
      { id: 'm_2' },
      { description: '' },
      { description: 'rice, "beans" and e' },
      { title: ' ' },
      { type: 'dinner' },
      { date: MEAL.date + 1 },
      { caloriesTotal: 512.50001 },
      { proteins_g: 0 },
      { carbs_g: null },
      // 1 and 12 are the first digits of 10 and 120: a number is not matched by its prefix.
      { fats_g: 1 },
      { calcium_mg: 12 },
      { calcium_mg: 1200 },
    ];
    for (const change of changes) {
      const changed = { ...MEAL, ...change };
      assert.equal(isStoredMeal(stored, encodeMealContent(changed)), false, JSON.stringify(change));
      assert.equal(isStoredMeal(encodeMeal(changed, MEAL.modifiedAt), encodeMealContent(MEAL)), false);
    }
  });
});
