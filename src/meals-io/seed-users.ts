import type { MealContent } from '../domain/meal.js';
import { heavySeedUserId, heavySyntheticMeals, seedUserId, syntheticMeals } from './synthetic-meals.js';

/** A user of `seed`'s synthetic data, and its meals (generated when asked for). */
export interface SeedUser {
  readonly userId: string;
  meals(): Iterable<MealContent>;
}

/** Users 1 to `count`, in the byte order of their ids (`idOf`). */
function inByteOrderOfIds(count: number, idOf: (user: number) => string): number[] {
  return Array.from({ length: count }, (_, i) => i + 1).sort((a, b) => {
    const x = idOf(a);
    const y = idOf(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/**
 * The users in the byte order of their ids, which is the order of the meals table's key
 * (user_id, modified_at, id): each user's rows then go at the right edge of the B-tree, an
 * append, rather than into the middle of pages that must split (seed_10 sorts before seed_2).
 * Heavy users' ids (`seed_heavy_…`) sort after every regular one.
 */
export function seedUsersInKeyOrder(
  seed: string,
  users: number,
  mealsPerUser: number,
  heavyUsers: number,
  heavyMeals: number,
) {
  const regular = inByteOrderOfIds(users, seedUserId);
  const heavy = inByteOrderOfIds(heavyUsers, heavySeedUserId);
  return [
    ...regular.map((n): SeedUser => ({ userId: seedUserId(n), meals: () => syntheticMeals(seed, n, mealsPerUser) })),
    ...heavy.map((n): SeedUser => ({
      userId: heavySeedUserId(n),
      meals: () => heavySyntheticMeals(seed, n, heavyMeals),
    })),
  ];
}
