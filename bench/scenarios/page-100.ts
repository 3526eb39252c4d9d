import { loadRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type MealPageBody, type Scenario } from '../harness/scenario.js';

/** Page of 100: a heavy user's first page of 100 meals (`hasMore` true), against the ceiling. */
export const page100: Scenario = {
  name: 'page-100',
  question: 'How close to the ceiling is a page of 100 meals?',
  async run(context) {
    const key = await context.createKey(context.big.db, HEAVY_USER);
    const request = firstPage(100);
    const page = await context.fetchJson<MealPageBody>(context.real, request, key);
    if (page.count !== 100 || !page.hasMore) throw new Error(`${HEAVY_USER}'s first page has ${page.count} meals`);
    const { real, ceiling } = await context.againstCeiling(request, key);
    return [loadRow('page-100', real, ceiling, { meals_per_response: page.count, user: HEAVY_USER })];
  },
};
