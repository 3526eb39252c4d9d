import type { BenchContext } from './context.js';
import type { ScenarioRow } from './results.js';

/** One question the benchmark answers, in one file under bench/scenarios/. */
export interface Scenario {
  readonly name: string;
  readonly question: string;
  /**
   * Needs neither the seeded SQLite databases nor the real server on the big one (it starts
   * servers on stores of its own): a run of such scenarios alone neither seeds nor starts them.
   */
  readonly standalone?: boolean;
  run(context: BenchContext): Promise<ScenarioRow[]>;
}

/** The feed's envelope as far as the scenarios read it. */
export interface MealPageBody {
  readonly count: number;
  readonly meals: ReadonlyArray<{ readonly id: string; readonly modifiedAt: string }>;
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
}

/** `?lastModifiedSince=…&limit=…` from the start of a feed. */
export function firstPage(limit: number): string {
  return `/v1/meals?lastModifiedSince=1970-01-01T00:00:00.000Z&limit=${limit}`;
}

export const HEAVY_USER = 'seed_heavy_1';
