/**
 * `meal-export/host`: the diet app's back end's entry point
 * (docs/app.md#the-back-end-meal-exporthost). It records meals and hands out keys and login links
 * from the app's own code, through the same paths as the command line: `upsertMeals` is `meals
 * import` (every record checked, then one transaction on the user's change clock, so no API client
 * misses a change; a meal saved unchanged is no change, counted as `unchanged`), `deleteMeal` is
 * `meals delete`, `createKey` / `listKeys` / `revokeKey` are `keys …`, `createLoginLink` is `users
 * login-link`, and `createWebhook` / `listWebhooks` / `deleteWebhook` / `enableWebhook` /
 * `rotateWebhookSecret` / `testWebhook` / `listWebhookAttempts` are `webhooks …`.
 *
 *   const host = await openMealHost(process.env.MEAL_EXPORT_DATABASE_URL, { publicUrl });
 *   await host.upsertMeals(user.id, [{ id: meal.id, title, type: 'lunch', date, caloriesTotal }]);
 *   res.redirect((await host.createLoginLink(user.id)).url);
 */
export { MealHostError, type MealHostErrorCode } from './host-error.js';
export type {
  CreatedKey,
  CreatedWebhook,
  KeyInfo,
  MealHost,
  MealHostOptions,
  MealInput,
  UpsertOutcome,
  WebhookAttemptInfo,
  WebhookInfo,
} from './host-api.js';
export { openMealHost } from './meal-host.js';
export type { MealType } from '../domain/meal.js';
