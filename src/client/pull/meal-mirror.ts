import type { Meal as StoredMeal } from '../../domain/meal.js';
import { mealFromJson } from '../../domain/meal-json.js';
import { DigestChange, EMPTY_DIGEST, type MealsDigest } from '../../domain/meals-digest.js';
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
 *
 * Its Meals-Digest moves with every meal put in or taken out, so the check against a
 * caught-up page (docs/api.md#verifying-a-copy-meals-digest) never rescans the copy.
 */
export class MealMirror {
  readonly #meals = new Map<string, StoredMeal>();
  #digest = new DigestChange();

  constructor(initial: Iterable<StoredMeal> = []) {
    for (const meal of initial) {
      const known = this.#meals.get(meal.id);
      if (known !== undefined) this.#digest.remove(known.id, known.modifiedAt);
      this.#meals.set(meal.id, meal);
      this.#digest.add(meal.id, meal.modifiedAt);
    }
  }

  get size(): number {
    return this.#meals.size;
  }

  /** The count and sum of the meals held now. */
  get digest(): MealsDigest {
    return this.#digest.applyTo(EMPTY_DIGEST);
  }

  clear(): void {
    this.#meals.clear();
    this.#digest = new DigestChange();
  }

  apply(items: readonly MealFeedItem[]): AppliedPage {
    let upserted = 0;
    let deleted = 0;
    for (const item of items) {
      const known = this.#meals.get(item.id);
      // Deleting first moves a changed meal to the end: the Map's order stays the feed's order.
      this.#meals.delete(item.id);
      if (known !== undefined) this.#digest.remove(known.id, known.modifiedAt);
      if (isTombstone(item)) {
        if (known !== undefined) deleted += 1;
        continue;
      }
      const meal = mealFromJson(item);
      this.#meals.set(item.id, meal);
      this.#digest.add(meal.id, meal.modifiedAt);
      // The same change again (a page re-applied after a crash, the overlap after a full pass) is no upsert.
      if (known?.modifiedAt !== meal.modifiedAt) upserted += 1;
    }
    return { upserted, deleted };
  }

  values(): IterableIterator<StoredMeal> {
    return this.#meals.values();
  }
}
