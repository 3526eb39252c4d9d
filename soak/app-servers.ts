import { setTimeout as sleep } from 'node:timers/promises';
import { mealPath } from '../test/support/host-api.js';
import type { HostClient } from './host-client.js';
import { type MealLedger, type MealRow, operationOf } from './meal-versions.js';

/** What the app servers' writes came to, by the service's `outcome` or by what went wrong. */
export type WriteTally = Record<string, number>;

export interface AppServers {
  readonly tally: WriteTally;
  /** Stops making writes and waits for those under way (late retries not yet sent are dropped). */
  stop(): Promise<void>;
}

const OUTCOMES = { put: ['created', 'updated', 'unchanged', 'stale'], delete: ['deleted', 'unchanged', 'stale'] };
/** Between two writes of one app server: with two, about 8 writes a second. */
const WRITE_GAP_MS = 250;
/** A write waits up to this long before it is sent, so that the two servers' writes cross. */
const MAX_DELAY_MS = 400;
/** One write in ten is followed, 1 to 8 s later, by a retry of a version 1 to 3 older. */
const LATE_RETRY_SHARE = 0.1;

/**
 * Two app servers saving and deleting the ledger's meals through the host API with
 * `sourceVersion` (docs/host-api.md#ordering-saves-sourceversion): out of order, with late
 * retries of older versions, and a retry of every write whose answer was lost.
 */
export function startAppServers(ledger: MealLedger, host: HostClient, count = 2): AppServers {
  const tally: WriteTally = {};
  const note = (what: string) => {
    tally[what] = (tally[what] ?? 0) + 1;
  };
  const inFlight = new Set<Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  let running = true;

  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const later = (ms: number, row: MealRow, version: number, label: string) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (running) track(write(row, version, label));
    }, ms);
    timers.add(timer);
  };

  async function write(row: MealRow, version: number, label: string): Promise<void> {
    const operation = operationOf(row.mealId, version);
    const path = mealPath(row.userId, row.mealId);
    const answer = await host.send(
      operation.kind === 'put'
        ? { method: 'PUT', path, json: { ...operation.record, sourceVersion: version }, expected: [200] }
        : { method: 'DELETE', path: `${path}?sourceVersion=${version}`, expected: [200] },
    );
    if (answer.kind === 'uncertain') {
      ledger.uncertain(row, version);
      note(`${label}uncertain (${answer.code})`);
      // The back end did not hear back, so it tries again, later: one more late retry.
      later(2000 + Math.random() * 8000, row, version, 'retry of uncertain: ');
      return;
    }
    if (answer.kind === 'refused') return note(`${label}not sent (no instance for 60 s)`);
    if (answer.status !== 200) return note(`${label}HTTP ${answer.status}`);
    const outcome = (answer.json as { outcome?: unknown } | undefined)?.outcome;
    if (typeof outcome !== 'string' || !OUTCOMES[operation.kind].includes(outcome)) {
      return note(`${label}${operation.kind} answered an unknown outcome ${JSON.stringify(outcome)}`);
    }
    ledger.acknowledge(row, version);
    note(`${label}${operation.kind} ${outcome}`);
  }

  async function appServer(): Promise<void> {
    while (running) {
      const { row, version } = ledger.nextWrite(Math.random);
      later(Math.random() * MAX_DELAY_MS, row, version, '');
      if (Math.random() < LATE_RETRY_SHARE) {
        const older = version - 1 - Math.floor(Math.random() * 3);
        if (older >= 1) later(1000 + Math.random() * 7000, row, older, 'late retry: ');
      }
      await sleep(WRITE_GAP_MS);
    }
  }

  const loops = Array.from({ length: count }, () => appServer());
  return {
    tally,
    async stop() {
      running = false;
      await Promise.all(loops);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
