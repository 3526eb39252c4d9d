/**
 * `meal-export/client`: a typed SDK for GET /v1/meals that pages, waits and retries by itself, and
 * `verifyWebhook(secret, headers, rawBody)` for the service's "your meals changed" calls.
 *
 *   const client = createMealExportClient({ baseUrl, apiKey, ca });
 *   for await (const { page, position, resynced } of client.sync({ from: saved })) { ... }
 *   // and to follow the changes as they commit (long poll), until the signal aborts:
 *   for await (const step of client.sync({ from: saved, follow: true, signal })) { ... }
 *   // and to prove the copy: a digest kept beside it, compared with each caught-up step's
 *   const digest = createMealsDigest(); ... if (step.digest && !digest.equals(step.digest)) rebuild();
 *   // and to add up the person's days: localDateOf(meal) is the day it was eaten where it was
 */
export { createMealExportClient, type MealExportClient, type MealExportClientOptions } from './client.js';
export {
  MealExportAuthError,
  MealExportBadRequestError,
  MealExportError,
  type MealExportErrorCode,
  MealExportHttpError,
  MealExportNetworkError,
  MealExportRateLimitError,
  MealExportResponseError,
  MealExportResyncLoopError,
  MealExportResyncRequiredError,
  MealExportWebhookVerificationError,
  type RequestInfo,
  type ResponseInfo,
  type WebhookVerificationCheck,
} from './errors.js';
export { createFetchTransport, type FetchFunction, type FetchTransportOptions } from './fetch-transport.js';
export { createHttpsTransport, type HttpsTransportOptions } from './https-transport.js';
export { localDateOf, localTimeOf } from './local-day.js';
export { MAX_WAIT_SECONDS } from '../domain/page-bounds.js';
export {
  createMealsDigest,
  formatMealsDigest,
  type MealsDigest,
  parseMealsDigest,
  type RunningMealsDigest,
} from './meals-digest.js';
export { EPOCH, FOLLOW_MARGIN_MS } from './sync.js';
export type { HttpTransport, TransportGetOptions } from './transport.js';
export {
  isTombstone,
  type KeyInfo,
  type ListMealsOptions,
  type Meal,
  type MealFeedItem,
  type MealPage,
  type MealPageAnswer,
  type MealType,
  type SyncOptions,
  type SyncPosition,
  type SyncStep,
  type Tombstone,
  type WaitEvent,
} from './types.js';
export {
  type MealsChangedEvent,
  verifyWebhook,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookTestEvent,
  type UserErasedEvent,
} from './verify-webhook.js';
export type { NetworkProblem } from './network-failure.js';
export type { BackoffOptions } from './wait-times.js';
