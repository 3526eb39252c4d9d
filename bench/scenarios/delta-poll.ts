import type { BenchContext } from '../harness/context.js';
import type { Deployment } from '../harness/deployment.js';
import { loadRow, type ScenarioRow } from '../harness/results.js';
import type { MealPageBody, Scenario } from '../harness/scenario.js';

/** Meals that change between two polls of a follower: the common case is a handful. */
const CHANGED = 6;

/** The delta poll of a regular user of a deployment: its request, a key, and how many meals it answers. */
export async function deltaPollRequest(
  context: BenchContext,
  deployment: Deployment,
  userId = `seed_${Math.ceil(deployment.shape.users / 2)}`,
) {
  const { server, db } = deployment;
  const key = await context.createKey(db, userId);
  const feed = await context.fetchJson<MealPageBody>(
    server,
    '/v1/meals?lastModifiedSince=1970-01-01T00:00:00.000Z&limit=5000',
    key,
  );
  const checkpoint = feed.meals[Math.max(0, feed.meals.length - CHANGED)]?.modifiedAt;
  if (checkpoint === undefined) throw new Error(`${userId} has no meals`);
  const request = `/v1/meals?lastModifiedSince=${encodeURIComponent(checkpoint)}`;
  const delta = await context.fetchJson<MealPageBody>(server, request, key);
  if (delta.count > 10) throw new Error(`the delta poll returns ${delta.count} meals, not 0–10`);
  return { request, key, userId, meals: delta.count };
}

/**
 * Delta poll: a follower whose checkpoint is near the end of a regular user's feed asks for
 * what changed since, and gets 0–10 meals. The request most clients make most of the time.
 */
export async function deltaPollRows(context: BenchContext, deployment: Deployment): Promise<ScenarioRow[]> {
  const { request, key, userId, meals } = await deltaPollRequest(context, deployment);
  const { real, ceiling } = await context.againstCeiling(request, key, {}, deployment.server);
  return [
    loadRow(`${deployment.rowPrefix}delta-poll`, real, ceiling, {
      deployment: deployment.label,
      meals_per_response: meals,
      user: userId,
    }),
  ];
}

export const deltaPoll: Scenario = {
  name: 'delta-poll',
  question: 'How close to the ceiling is the poll that returns a few changed meals?',
  run: (context) => deltaPollRows(context, context.embedded),
};
