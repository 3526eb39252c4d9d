import type { Meal as StoredMeal } from '../../domain/meal.js';
import { mealFromJson } from '../../domain/meal-json.js';
import { isTombstone, type MealFeedItem } from '../types.js';

export interface AppliedPage {
  /** Meals created or changed in the copy. */
  readonly upserted: number;
  /** Tombstones that removed a meal of the copy (a tombstone for an unknown id changes nothing). */
  readonly deleted: number;
}

/**
 * The consumer's copy of one user's live meals, by id, in feed order (the order of their last
 * change, which is the order of `meals export`). Applying a page twice gives the same copy,
 * which is what makes a crash between writing the copy and saving the position harmless.
 *
 * The whole copy is held in memory (a Map by id): simple, and fine for the meals of one user;
 * an on-disk store (SQLite) would be the next step for very large copies.
 */
export class MealMirror {
  readonly #meals = new Map<string, StoredMeal>();

  constructor(initial: Iterable<StoredMeal> = []) {
    for (const meal of initial) this.#meals.set(meal.id, meal);
  }

  get size(): number {
    return this.#meals.size;
  }

  clear(): void {
    this.#meals.clear();
  }

  apply(items: readonly MealFeedItem[]): AppliedPage {
    let upserted = 0;
    let deleted = 0;
    for (const item of items) {
      const known = this.#meals.get(item.id);
      // Deleting first moves a changed meal to the end: the Map's order stays the feed's order.
      this.#meals.delete(item.id);
      if (isTombstone(item)) {
        if (known !== undefined) deleted += 1;
        continue;
      }
      const meal = mealFromJson(item);
      this.#meals.set(item.id, meal);
      // The same change again (a page re-applied after a crash, the overlap after a full pass) is no upsert.
      if (known?.modifiedAt !== meal.modifiedAt) upserted += 1;
    }
    return { upserted, deleted };
  }

  values(): IterableIterator<StoredMeal> {
    return this.#meals.values();
  }
}
