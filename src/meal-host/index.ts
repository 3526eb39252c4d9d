/**
 * `meal-export/host`: the diet app's back end's entry point (docs/app.md#the-back-end-meal-exporthost).
 * Each call takes its command's path (`upsertMeals` is `meals import`, `createKey` is `keys create`, …),
 * so a write is one transaction on the user's change clock and no API client misses a change.
 *
 *   const host = await openMealHost(process.env.MEAL_EXPORT_DATABASE_URL, { publicUrl });
 *   await host.upsertMeals(user.id, [{ id: meal.id, title, type: 'lunch', date, caloriesTotal }]);
 *   res.redirect((await host.createLoginLink(user.id)).url);
 */
export { MealHostError, type MealHostErrorCode } from './meal-host-error.js';
export type {
  AppInfo,
  CreatedApp,
  CreatedKey,
  CreatedServiceToken,
  CreatedWebhook,
  HistoryInput,
  ImportedHistory,
  KeyInfo,
  MealHost,
  MealHostOptions,
  MealInput,
  MealRecord,
  SavedMeal,
  StoredMealInfo,
  ServiceTokenInfo,
  UpsertOutcome,
  WebhookAttemptInfo,
  WebhookInfo,
} from './meal-host-types.js';
export { openMealHost } from './meal-host.js';
export type { MealType } from '../domain/meal.js';
