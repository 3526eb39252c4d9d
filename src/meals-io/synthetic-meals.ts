import { MEAL_TYPES, type MealContent, type MealType } from '../domain/meal.js';
import { createSeededRandom, hashSeed, type SeededRandom } from '../domain/seeded-random.js';
import { utcOffsetMinutes } from '../domain/utc-offset.js';

/**
 * Deterministic synthetic meals for `seed` (docs/cli.md#seed). Each user's meals come
 * from their own generator, seeded by (seed, user), so a user's first meals are the same
 * whatever the number of users or meals asked for.
 */

/**
 * Meals are dated over the two years before this fixed instant rather than before "now":
 * the same seed must give the same data on any day.
 */
export const SYNTHETIC_DATES_END = Date.UTC(2026, 0, 1);
const DAYS = 730;
const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

export function seedUserId(user: number): string {
  return `seed_${user}`;
}

/** Unique across users: the user's number is part of it. */
export function seedMealId(user: number, meal: number): string {
  return `seed_${user}_${meal}`;
}

/**
 * Heavy users (`seed --heavy-users K --heavy-meals M`) have feeds thousands of meals long, for
 * the page-of-5000 benchmark: `seed_heavy_1` ... `seed_heavy_K`, apart from the regular users.
 */
export function heavySeedUserId(user: number): string {
  return `seed_heavy_${user}`;
}

/** Unique across users, and never one of a regular user's: `seed_heavy_<user>_<n>`. */
export function heavySeedMealId(user: number, meal: number): string {
  return `seed_heavy_${user}_${meal}`;
}

interface MealShape {
  readonly titles: readonly string[];
  readonly firstHour: number;
  readonly hours: number;
  readonly minCalories: number;
  readonly calorieRange: number;
}

// Some titles and notes hold commas, quotes and a line break, as real ones do: exports must quote them.
const SHAPES: Readonly<Record<MealType, MealShape>> = {
  breakfast: {
    titles: ['Oatmeal with berries', 'Eggs, toast and coffee', 'Greek yogurt & granola', 'Pancakes', 'Avocado toast'],
    firstHour: 6,
    hours: 4,
    minCalories: 250,
    calorieRange: 400,
  },
  lunch: {
    titles: ['Chicken salad', 'Rice, beans & salsa', 'Tuna sandwich', 'Lentil soup', 'Poke bowl'],
    firstHour: 11,
    hours: 3,
    minCalories: 400,
    calorieRange: 500,
  },
  dinner: {
    titles: [
      'Grandma\'s "famous" lasagna',
      'Salmon, potatoes, green beans',
      'Stir-fried tofu',
      'Steak frites',
      'Pasta',
    ],
    firstHour: 18,
    hours: 4,
    minCalories: 450,
    calorieRange: 650,
  },
  snack: {
    titles: ['Apple', 'Handful of almonds', 'Protein bar', 'Cheese & crackers', 'Banana'],
    firstHour: 9,
    hours: 13,
    minCalories: 80,
    calorieRange: 320,
  },
};
/**
 * Where users eat, roughly as an app's users spread over the world (weights), and the
 * share whose app did not say (null): each user is given one, so that a user's days are
 * someone's days, and meals cross UTC midnight as real ones do.
 */
const UTC_OFFSETS: readonly (readonly [string | null, number])[] = [
  ['-08:00', 10],
  ['-07:00', 4],
  ['-06:00', 6],
  ['-05:00', 12],
  ['-04:00', 5],
  ['-03:00', 6],
  ['+00:00', 6],
  ['+01:00', 13],
  ['+02:00', 6],
  ['+03:00', 4],
  ['+05:30', 8],
  ['+05:45', 1],
  ['+07:00', 3],
  ['+08:00', 7],
  ['+09:00', 5],
  ['+10:00', 2],
  ['+13:00', 1],
  [null, 5],
];

const UTC_OFFSET_WEIGHTS = UTC_OFFSETS.reduce((sum, [, weight]) => sum + weight, 0);

/** A user's UTC offset, from a generator of its own: the meals' other values stay as they were. */
function userUtcOffset(random: SeededRandom): string | null {
  let left = random.int(UTC_OFFSET_WEIGHTS);
  for (const [offset, weight] of UTC_OFFSETS) {
    if (left < weight) return offset;
    left -= weight;
  }
  return null;
}

const NOTES = ['', '', '', 'homemade', 'restaurant', 'large portion', 'with a glass of water', 'leftovers, reheated'];
const EXTRAS = ['', 'so-called "light" version', 'shared with friends.\nSecond helping.', 'extra sauce, no salt'];

/** Rounded to one or two decimals, as apps record them. */
function amount(random: SeededRandom, min: number, range: number): number {
  const scale = random.chance(0.5) ? 10 : 100;
  return Math.round((min + random.next() * range) * scale) / scale;
}

function maybe(random: SeededRandom, nullChance: number, value: number): number | null {
  return random.chance(nullChance) ? null : value;
}

function description(random: SeededRandom): string {
  const note = random.pick(NOTES);
  const extra = random.pick(EXTRAS);
  return note && extra ? `${note}; ${extra}` : note || extra;
}

function syntheticMeal(random: SeededRandom, id: string, utcOffset: string | null): MealContent {
  const type = random.pick(MEAL_TYPES);
  const shape = SHAPES[type];
  const day = SYNTHETIC_DATES_END - (random.int(DAYS) + 1) * MS_PER_DAY;
  const minutes = (shape.firstHour + random.int(shape.hours)) * 60 + random.int(60);
  const energy = amount(random, shape.minCalories, shape.calorieRange);
  // Protein 15-30 %, fat 25-40 % of the energy, carbohydrates the rest (4, 9 and 4 kcal/g).
  const proteinShare = 0.15 + random.next() * 0.15;
  const fatShare = 0.25 + random.next() * 0.15;
  return {
    id,
    description: description(random),
    title: random.pick(shape.titles),
    type,
    // The shape's hours are the person's: dinner at 19:00 where they are.
    date: day + (minutes - (utcOffset === null ? 0 : (utcOffsetMinutes(utcOffset) ?? 0))) * MS_PER_MINUTE,
    utcOffset,
    caloriesTotal: maybe(random, 0.05, energy),
    proteins_g: maybe(random, 0.1, amount(random, (energy * proteinShare) / 4, 0)),
    fats_g: maybe(random, 0.1, amount(random, (energy * fatShare) / 9, 0)),
    carbs_g: maybe(random, 0.1, amount(random, (energy * (1 - proteinShare - fatShare)) / 4, 0)),
    fibers_g: maybe(random, 0.2, amount(random, 0.5, 14)),
    sodium_mg: maybe(random, 0.25, amount(random, 50, 1450)),
    iron_mg: maybe(random, 0.3, amount(random, 0.2, 7.8)),
    calcium_mg: maybe(random, 0.3, amount(random, 10, 590)),
  };
}

/** User `user`'s meals 1..count with the given seed, generated one at a time. */
export function* syntheticMeals(seed: string, user: number, count: number): Generator<MealContent> {
  const random = createSeededRandom(hashSeed(`${seed}:${user}`));
  const utcOffset = userUtcOffset(createSeededRandom(hashSeed(`${seed}:${user}:utcOffset`)));
  for (let index = 1; index <= count; index += 1) yield syntheticMeal(random, seedMealId(user, index), utcOffset);
}

/** Heavy user `user`'s meals 1..count: their own generator, so regular users' meals do not change. */
export function* heavySyntheticMeals(seed: string, user: number, count: number): Generator<MealContent> {
  const random = createSeededRandom(hashSeed(`${seed}:heavy_${user}`));
  const utcOffset = userUtcOffset(createSeededRandom(hashSeed(`${seed}:heavy_${user}:utcOffset`)));
  for (let index = 1; index <= count; index += 1) {
    yield syntheticMeal(random, heavySeedMealId(user, index), utcOffset);
  }
}
