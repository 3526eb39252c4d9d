import { parseDuration } from '../domain/duration.js';
import { issueApiKey } from '../keys/issue-api-key.js';
import { MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import type { MealSave } from '../domain/meal.js';
import { pagePathFault } from '../domain/page-path.js';
import { isSourceVersion, sourceVersionFault } from '../domain/source-version.js';
import { parseMealRecord } from '../meals-io/meal-record.js';
import { openStorage } from '../storage/open-storage.js';
import { type Storage } from '../storage/storage.js';
import { mintLoginLink } from '../web/login-link.js';
import type { MealHost, MealHostOptions } from './meal-host-types.js';
import { checkUserId, originOf } from './host-arguments.js';
import { MealHostError } from './meal-host-error.js';
import { createdKeyView, erasedUserView, keyInfo, loginLinkView } from './host-records.js';
import { createHostApps } from './host-apps.js';
import { createHostHistory } from './host-history.js';
import { createHostMeals } from './host-meals.js';
import { createHostServiceTokens } from './host-service-tokens.js';
import { createHostWebhooks } from './host-webhooks.js';

/** The host over an open store, which close() closes: meals, keys and login links; webhooks in host-webhooks.ts. */
export function createMealHost(storage: Storage, options: MealHostOptions = {}): MealHost {
  const defaultPublicUrl = options.publicUrl === undefined ? undefined : originOf(options.publicUrl);
  return {
    async upsertMeals(userId, meals) {
      checkUserId(userId);
      // The rules and the write of `meals import`: every record checked first, then one
      // transaction on the user's change clock, so that no client misses the change
      // (docs/api.md#staying-in-sync).
      const contents: MealSave[] = [];
      meals.forEach((input, index) => {
        const result = parseMealRecord(input as unknown as Readonly<Record<string, unknown>>, 'json');
        if (!result.ok) throw new MealHostError('invalid_meal', `Meal ${index}: ${result.message}`, index);
        contents.push(result.meal);
      });
      if (contents.length === 0) return { ids: [], created: 0, updated: 0, unchanged: 0, stale: 0 };
      const result = await storage.writes.upsertMeals(userId, contents, Date.now());
      if (!result.ok) {
        const id = contents[result.index]?.id ?? '';
        throw new MealHostError(
          'id_taken',
          `Meal ${result.index}: id ${JSON.stringify(id)} belongs to another user.`,
          result.index,
        );
      }
      const { created, updated, unchanged, stale } = result;
      return { ids: contents.map((meal) => meal.id), created, updated, unchanged, stale };
    },

    async deleteMeal(userId, mealId, deleteOptions = {}) {
      checkUserId(userId);
      const { sourceVersion } = deleteOptions;
      if (sourceVersion !== undefined && !isSourceVersion(sourceVersion)) {
        const got = JSON.stringify(sourceVersion) ?? String(sourceVersion);
        throw new MealHostError('invalid_argument', sourceVersionFault(got));
      }
      const outcome = await storage.writes.deleteMeal(userId, mealId, Date.now(), sourceVersion);
      if (outcome === 'foreign_id')
        throw new MealHostError('id_taken', `meal id ${JSON.stringify(mealId)} belongs to another user`);
      return outcome;
    },

    async createKey(userId, keyOptions = {}) {
      checkUserId(userId);
      let lifetimeMs: number | undefined;
      if (keyOptions.expiresIn !== undefined) {
        lifetimeMs = parseDuration(keyOptions.expiresIn);
        if (lifetimeMs === undefined)
          throw new MealHostError('invalid_argument', 'expiresIn must look like 90s, 30m, 12h or 30d');
      }
      const issued = await issueApiKey(storage.keys, { userId, name: keyOptions.name ?? '', lifetimeMs }, Date.now());
      if (!issued.ok)
        throw new MealHostError('too_many_keys', `user ${userId} already has ${MAX_ACTIVE_KEYS} active keys`);
      // The command's view, but the caller named the user: it is not said back.
      const { userId: _userId, ...created } = createdKeyView(issued.key, issued.record);
      return created;
    },

    async listKeys(userId) {
      checkUserId(userId);
      const now = Date.now();
      return (await storage.keys.listApiKeys(userId)).map((record) => keyInfo(record, now));
    },

    async revokeKey(userId, keyId) {
      checkUserId(userId);
      // Only the user's own key: another user's key id is as unknown as a made-up one.
      if (!(await storage.keys.listApiKeys(userId)).some((record) => record.id === keyId)) return false;
      return (await storage.keys.revokeApiKey(keyId, Date.now())) !== undefined;
    },

    async createLoginLink(userId, linkOptions = {}) {
      checkUserId(userId);
      const base = linkOptions.publicUrl === undefined ? defaultPublicUrl : originOf(linkOptions.publicUrl);
      if (base === undefined) {
        throw new MealHostError('invalid_argument', 'no publicUrl: pass it to openMealHost or createLoginLink');
      }
      const fault = linkOptions.next === undefined ? undefined : pagePathFault(linkOptions.next);
      if (fault !== undefined) throw new MealHostError('invalid_argument', fault);
      const link = await mintLoginLink(storage, userId, base, Date.now(), linkOptions.next);
      return loginLinkView(link);
    },

    async eraseUser(userId) {
      checkUserId(userId);
      return erasedUserView(userId, await storage.erasure.eraseUser(userId, Date.now())).erased;
    },

    ...createHostMeals(storage),
    ...createHostHistory(storage),
    ...createHostWebhooks(storage),
    ...createHostServiceTokens(storage),
    ...createHostApps(storage),
    close: () => storage.close(),
  };
}

/**
 * Opens the store a location names (a SQLite file path, or `postgres://…` where that adapter
 * is built in), bringing its schema up to date, as every command does.
 */
export async function openMealHost(location: string, options: MealHostOptions = {}): Promise<MealHost> {
  return createMealHost(await openStorage(location, { longLived: true }), options);
}
