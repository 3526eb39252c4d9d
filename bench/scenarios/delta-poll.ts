import { loadRow } from '../harness/results.js';
import type { MealPageBody, Scenario } from '../harness/scenario.js';

/** Meals that change between two polls of a follower: the common case is a handful. */
const CHANGED = 6;

/**
 * Delta poll: a follower whose checkpoint is near the end of a regular user's feed asks for
 * what changed since, and gets 0–10 meals. The request most clients make most of the time.
 */
export const deltaPoll: Scenario = {
  name: 'delta-poll',
  question: 'How close to the ceiling is the poll that returns a few changed meals?',
  async run(context) {
    const userId = `seed_${Math.ceil(context.big.shape.users / 2)}`;
    const key = await context.createKey(context.big.db, userId);
    const feed = await context.fetchJson<MealPageBody>(
      context.real,
      '/v1/meals?lastModifiedSince=1970-01-01T00:00:00.000Z&limit=5000',
      key,
    );
    const checkpoint = feed.meals[Math.max(0, feed.meals.length - CHANGED)]?.modifiedAt;
    if (checkpoint === undefined) throw new Error(`${userId} has no meals`);
    const request = `/v1/meals?lastModifiedSince=${encodeURIComponent(checkpoint)}`;
    const delta = await context.fetchJson<MealPageBody>(context.real, request, key);
    if (delta.count > 10) throw new Error(`the delta poll returns ${delta.count} meals, not 0–10`);
    const { real, ceiling } = await context.againstCeiling(request, key);
    return [loadRow('delta-poll', real, ceiling, { meals_per_response: delta.count, user: userId })];
  },
};
