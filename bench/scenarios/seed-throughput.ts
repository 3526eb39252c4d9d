import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DATA_DIR, seedDatabase } from '../harness/datasets.js';
import { figuresRow } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';

/**
 * Seed throughput: the real `seed` command into a fresh database, every run (the big database
 * is cached, so its seeding is measured only when it is made). Target: ≥ 100 k meals/s.
 */
export const seedThroughput: Scenario = {
  name: 'seed',
  question: 'How many meals per second does `seed` write?',
  async run(context) {
    const folder = path.join(DATA_DIR, 'seed-probe');
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    try {
      const probe = await seedDatabase(context.options.seedProbe, path.join(folder, 'meal-export.db'));
      const big = context.big.seeding;
      return [
        figuresRow('seed', {
          meals_per_s: probe.mealsPerSecond,
          meals: probe.meals,
          seconds: probe.seconds,
          cpu_us_per_meal: Math.round((probe.cpuSeconds * 1e7) / probe.meals) / 10,
          big_meals: big.meals,
          big_meals_per_s: big.mealsPerSecond,
          big_seconds: big.seconds,
          big_seeded_this_run: context.big.seededNow,
        }),
      ];
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
};
