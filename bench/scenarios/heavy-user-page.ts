import { loadRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type MealPageBody, type Scenario } from '../harness/scenario.js';

/**
 * A heavy user's first page of `limit` meals (more follow: `hasMore` true), served by the real
 * server and by the ceiling in the same run.
 */
export function heavyUserPage(limit: number, question: string): Scenario {
  const name = `page-${limit}`;
  return {
    name,
    question,
    async run(context) {
      const key = await context.createKey(context.big.db, HEAVY_USER);
      const request = firstPage(limit);
      const page = await context.fetchJson<MealPageBody>(context.real, request, key);
      if (page.count !== limit || !page.hasMore) {
        throw new Error(
          `${HEAVY_USER}'s first page has ${page.count} meals (hasMore ${page.hasMore}), not ${limit} of more`,
        );
      }
      const { real, ceiling } = await context.againstCeiling(request, key);
      return [loadRow(name, real, ceiling, { meals_per_response: page.count, user: HEAVY_USER })];
    },
  };
}
