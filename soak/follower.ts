import { setTimeout as sleep } from 'node:timers/promises';
import {
  createMealExportClient,
  createMealsDigest,
  formatMealsDigest,
  isTombstone,
  type Meal,
  type MealExportClient,
  type RunningMealsDigest,
  type SyncPosition,
  type SyncStep,
} from '../src/client/index.js';
import type { HttpTransport } from '../src/client/transport.js';

/** What one follower saw: its copy, and every check of it against the server's Meals-Digest. */
export interface FollowerState {
  readonly userId: string;
  readonly copy: ReadonlyMap<string, Meal>;
  /** Caught-up steps whose digest the copy matched, and those it did not. */
  readonly digests: { matched: number; differed: number };
  readonly differences: string[];
  /** Pages applied; 410s that made it start over; times the client gave up and was started again. */
  readonly counts: { pages: number; resyncs: number; restarts: number };
  readonly lastError: { message: string | undefined };
}

export interface Follower {
  readonly state: FollowerState;
  /** Stops following (its held poll dropped), then syncs once more to the end of the feed. */
  finish(): Promise<void>;
}

const WAIT_SECONDS = 20;

/**
 * A consumer keeping a copy of one user's meals by the documented recipe (docs/sdk.md, the SDK's
 * `sync({ follow: true })`): tombstones applied, its own digest moved with every meal in and out
 * and compared with each caught-up step's `Meals-Digest`. A copy that differs is counted, then
 * rebuilt from the beginning, as the recipe does. A sync the client gave up on (its retries
 * spent while an instance was down) starts again from the saved position a second later.
 */
export function startFollower(
  userId: string,
  apiKey: string,
  baseUrl: string,
  transport: HttpTransport,
  minIntervalMs: number,
): Follower {
  const client: MealExportClient = createMealExportClient({ baseUrl, apiKey, transport, minIntervalMs });
  const copy = new Map<string, Meal>();
  let digest: RunningMealsDigest = createMealsDigest();
  let from: SyncPosition | undefined;
  const state: FollowerState = {
    userId,
    copy,
    digests: { matched: 0, differed: 0 },
    differences: [],
    counts: { pages: 0, resyncs: 0, restarts: 0 },
    lastError: { message: undefined },
  };
  const startOver = () => {
    copy.clear();
    digest = createMealsDigest();
    from = undefined;
  };

  /** Applies a step; false when its digest differs from the copy's (the copy was started over). */
  function apply(step: SyncStep): boolean {
    if (step.resynced) {
      state.counts.resyncs += 1;
      startOver();
    }
    for (const item of step.page.meals) {
      const old = copy.get(item.id);
      if (old !== undefined) digest.remove(old.id, old.modifiedAt);
      if (isTombstone(item)) copy.delete(item.id);
      else {
        copy.set(item.id, item);
        digest.add(item.id, item.modifiedAt);
      }
    }
    from = step.position;
    state.counts.pages += 1;
    if (step.digest === null) return true;
    if (digest.equals(step.digest)) {
      state.digests.matched += 1;
      return true;
    }
    state.digests.differed += 1;
    if (state.differences.length < 5) {
      state.differences.push(
        `copy ${digest.toString()}, server ${formatMealsDigest(step.digest)} at ${new Date().toISOString()}`,
      );
    }
    startOver();
    return false;
  }

  const abort = new AbortController();
  const following = (async () => {
    while (!abort.signal.aborted) {
      try {
        for await (const step of client.sync({ from, follow: true, wait: WAIT_SECONDS, signal: abort.signal })) {
          if (!apply(step)) break;
        }
      } catch (error) {
        if (abort.signal.aborted) return;
        state.counts.restarts += 1;
        state.lastError.message = error instanceof Error ? error.message : String(error);
        await sleep(1000);
      }
    }
  })();

  return {
    state,
    async finish() {
      abort.abort();
      await following;
      // To the end of the feed once more; a copy that differed is rebuilt, once.
      for (let pass = 0; pass < 2; pass += 1) {
        let agreed = true;
        for await (const step of client.sync({ from })) {
          if (apply(step)) continue;
          agreed = false;
          break;
        }
        if (agreed) break;
      }
      client.close();
    },
  };
}
