import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MEAL_TYPES } from '../../src/domain/meal.js';
import { localClockOf } from '../../src/domain/utc-offset.js';
import {
  heavySeedMealId,
  heavySeedUserId,
  heavySyntheticMeals,
  SYNTHETIC_DATES_END,
  seedMealId,
  syntheticMeals,
} from '../../src/meals-io/synthetic-meals.js';

test('the same seed gives the same meals, and another seed other meals', () => {
  const a = [...syntheticMeals('1', 3, 50)];
  assert.deepEqual([...syntheticMeals('1', 3, 50)], a);
  const other = [...syntheticMeals('2', 3, 50)];
  assert.deepEqual(
    other.map((m) => m.id),
    a.map((m) => m.id),
  );
  assert.notDeepEqual(other, a);
});

test("a user's first meals do not depend on how many are asked for", () => {
  assert.deepEqual([...syntheticMeals('x', 1, 5)], [...syntheticMeals('x', 1, 20)].slice(0, 5));
});

test('ids are seed_<user>_<n>, so they never collide across users', () => {
  assert.deepEqual(
    [...syntheticMeals('1', 12, 3)].map((m) => m.id),
    ['seed_12_1', 'seed_12_2', 'seed_12_3'],
  );
  assert.notEqual(seedMealId(1, 12), seedMealId(11, 2));
});

test("heavy users' meals are seed_heavy_<user>_<n>, deterministic, and not a regular user's", () => {
  const heavy = [...heavySyntheticMeals('1', 2, 30)];
  assert.deepEqual([...heavySyntheticMeals('1', 2, 30)], heavy);
  assert.deepEqual(
    heavy.slice(0, 3).map((m) => m.id),
    ['seed_heavy_2_1', 'seed_heavy_2_2', 'seed_heavy_2_3'],
  );
  assert.equal(heavySeedUserId(2), 'seed_heavy_2');
  assert.equal(heavySeedMealId(2, 7), 'seed_heavy_2_7');
  const regular = [...syntheticMeals('1', 2, 30)];
  assert.notDeepEqual(
    heavy.map(({ id: _, ...content }) => content),
    regular.map(({ id: _, ...content }) => content),
  );
});

test('meals look real: every type, dates over the two years before the fixed end, valid plausible numbers, some nulls', () => {
  const meals = [...syntheticMeals('1', 1, 2000)];
  assert.deepEqual(new Set(meals.map((m) => m.type)), new Set(MEAL_TYPES));
  const twoYears = 731 * 86_400_000;
  // The two years are the person's days: their instants reach 14 hours (the widest offset) past either end.
  const offsetBound = 14 * 3_600_000;
  for (const m of meals) {
    assert.ok(
      m.date < SYNTHETIC_DATES_END + offsetBound && m.date >= SYNTHETIC_DATES_END - twoYears - offsetBound,
      new Date(m.date).toISOString(),
    );
    for (const value of [
      m.caloriesTotal,
      m.proteins_g,
      m.fats_g,
      m.carbs_g,
      m.fibers_g,
      m.sodium_mg,
      m.iron_mg,
      m.calcium_mg,
    ]) {
      if (value === null) continue;
      assert.ok(Number.isFinite(value) && value >= 0, String(value));
      assert.ok(Math.round(value * 100) / 100 === value, `at most two decimals: ${value}`);
    }
    if (m.caloriesTotal !== null) assert.ok(m.caloriesTotal >= 80 && m.caloriesTotal <= 1100, String(m.caloriesTotal));
  }
  assert.ok(meals.some((m) => m.caloriesTotal === null));
  assert.ok(meals.some((m) => m.iron_mg === null));
  assert.ok(
    meals.some((m) => /[",\n]/.test(m.title + m.description)),
    'some text needs CSV quoting',
  );
  assert.ok(meals.some((m) => m.description === ''));
});

test("users eat where they live: offsets spread east and west of UTC, some unknown, and meals at the person's hours", () => {
  const offsets = new Map<string | null, number>();
  for (let user = 1; user <= 400; user += 1) {
    const meals = [...syntheticMeals('1', user, 20)];
    const offset = meals[0]?.utcOffset ?? null;
    assert.ok(
      meals.every((m) => m.utcOffset === offset),
      "one offset per user: the user's home",
    );
    offsets.set(offset, (offsets.get(offset) ?? 0) + 1);
    for (const meal of meals.filter((m) => m.type === 'dinner')) {
      const hour = new Date(localClockOf(meal.date, offset)).getUTCHours();
      assert.ok(hour >= 18 && hour <= 21, `dinner at ${hour}:00 where user ${user} is (${offset})`);
    }
  }
  const known = [...offsets.keys()].filter((offset): offset is string => offset !== null);
  assert.ok(known.some((offset) => offset.startsWith('-')) && known.some((offset) => offset.startsWith('+')));
  assert.ok(
    known.some((offset) => offset.endsWith(':30') || offset.endsWith(':45')),
    'some half-hour zones',
  );
  const unknown = offsets.get(null) ?? 0;
  assert.ok(unknown > 0 && unknown < 60, `${unknown} of 400 users without an offset`);
});
