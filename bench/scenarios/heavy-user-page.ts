import type { BenchContext } from '../harness/context.js';
import type { Deployment } from '../harness/deployment.js';
import { loadRow, type ScenarioRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type MealPageBody, type Scenario } from '../harness/scenario.js';

/**
 * A heavy user's first page of `limit` meals (more follow: `hasMore` true), served by a
 * deployment's server and by the ceiling in the same run.
 */
export async function heavyUserPageRows(
  context: BenchContext,
  deployment: Deployment,
  limit: number,
): Promise<ScenarioRow[]> {
  const key = await context.createKey(deployment.db, HEAVY_USER);
  const request = firstPage(limit);
  const page = await context.fetchJson<MealPageBody>(deployment.server, request, key);
  if (page.count !== limit || !page.hasMore) {
    throw new Error(
      `${HEAVY_USER}'s first page has ${page.count} meals (hasMore ${page.hasMore}), not ${limit} of more`,
    );
  }
  const { real, ceiling } = await context.againstCeiling(request, key, {}, deployment.server);
  return [
    loadRow(`${deployment.rowPrefix}page-${limit}`, real, ceiling, {
      deployment: deployment.label,
      meals_per_response: page.count,
      user: HEAVY_USER,
    }),
  ];
}

/** The page on the embedded default (SQLite), the real server of the whole run. */
export function heavyUserPage(limit: number, question: string): Scenario {
  return {
    name: `page-${limit}`,
    question,
    run: (context) => heavyUserPageRows(context, context.embedded, limit),
  };
}
