import { setTimeout as sleep } from 'node:timers/promises';
import { seedUserId } from '../../src/meals-io/synthetic-meals.js';
import type { BenchContext } from '../harness/context.js';
import type { Deployment } from '../harness/deployment.js';
import type { LoadResult, LoadSpec } from '../harness/load.js';
import { firstPage, type MealPageBody } from '../harness/scenario.js';
import { deltaPollRequest } from './delta-poll.js';

/** A serving instance's delta polls while the history goes in: a steady rate, well under its ceiling. */
const RATE = 100;

/**
 * The delta poll of the history's first user, measured at a fixed rate on the big store's
 * server while `load` (the import of the rest) runs beside it, and again once it has ended:
 * a serving instance must keep answering through the first day's load (reads must not
 * starve). Waits for the user's meals (the first batch committed) before it starts.
 */
export async function pollBesideLoad<T>(
  context: BenchContext,
  deployment: Deployment,
  load: Promise<T>,
): Promise<{ loaded: T; during: LoadResult; idle: LoadResult; rate: number; throughout: boolean }> {
  let ended = false;
  const watched = load.finally(() => {
    ended = true;
  });
  // Its failure is the caller's, from `await watched` below; until then it must not go unhandled.
  watched.catch(() => undefined);
  const userId = seedUserId(1);
  const key = await context.createKey(deployment.db, userId);
  for (;;) {
    if (ended) break;
    const page = await context.fetchJson<MealPageBody>(deployment.server, firstPage(1), key);
    if (page.count > 0) break;
    await sleep(200);
  }
  const { request, key: pollKey } = await deltaPollRequest(context, deployment, userId);
  const spec: Partial<LoadSpec> = {
    overallRate: RATE,
    connections: 4,
    warmupSeconds: 1,
    seconds: context.options.quick ? 10 : 20,
  };
  const during = await context.measure(deployment.server, request, pollKey, spec);
  const throughout = !ended;
  const loaded = await watched;
  const idle = await context.measure(deployment.server, request, pollKey, spec);
  return { loaded, during, idle, rate: RATE, throughout };
}
