import type { Storage } from '../storage/storage.js';
import type { MealHost, StoredMealInfo } from './meal-host-types.js';
import { MealHostError } from './meal-host-error.js';
import { saveRecord, storedMealJson } from './host-meal-operations.js';

/** The host's one-meal methods: the host API's PUT and GET, for the app's code, through the same operations. */
export type HostMeals = Pick<MealHost, 'saveMeal' | 'getMeal'>;

export function createHostMeals(storage: Storage): HostMeals {
  return {
    async saveMeal(userId, mealId, record) {
      const saved = await saveRecord(storage.writes, userId, mealId, { ...record }, Date.now());
      if (saved.ok) return { id: saved.id, outcome: saved.outcome, modifiedAt: saved.modifiedAt };
      if (saved.reason === 'foreign_id') throw new MealHostError('id_taken', saved.message, 0);
      if (saved.inPath === true && saved.field === 'userId') throw new MealHostError('invalid_user_id', saved.message);
      throw new MealHostError('invalid_meal', `Meal 0: ${saved.message}`, 0);
    },

    async getMeal(userId, mealId) {
      const json = await storedMealJson(storage.feed, userId, mealId);
      return json === undefined ? undefined : (JSON.parse(json) as StoredMealInfo);
    },
  };
}
