import { loadRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type MealPageBody, type Scenario } from '../harness/scenario.js';

/** Page of 5000: the largest page, as a first full sync reads it, against the ceiling. */
export const page5000: Scenario = {
  name: 'page-5000',
  question: 'How close to the ceiling is a page of 5000 meals (a first full sync)?',
  async run(context) {
    const key = await context.createKey(context.big.db, HEAVY_USER);
    const request = firstPage(5000);
    const page = await context.fetchJson<MealPageBody>(context.real, request, key);
    if (page.count !== 5000) throw new Error(`${HEAVY_USER}'s first page has ${page.count} meals, not 5000`);
    const { real, ceiling } = await context.againstCeiling(request, key);
    return [loadRow('page-5000', real, ceiling, { meals_per_response: page.count, user: HEAVY_USER })];
  },
};
