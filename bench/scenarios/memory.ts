import type { BenchContext } from '../harness/context.js';
import { processMemory } from '../harness/proc-stats.js';
import { loadRow, ratio, type ScenarioRow } from '../harness/results.js';
import type { ScaleOut } from '../harness/scale-out.js';
import { firstPage, HEAVY_USER, type Scenario } from '../harness/scenario.js';
import { startRealServer } from '../harness/servers.js';

/** Where the memory row's fresh server runs: the store, and what its deployment starts it with. */
interface MemoryTarget {
  readonly rowPrefix: string;
  readonly label: string;
  readonly db: string;
  readonly serveArgs?: readonly string[];
  readonly serveEnv?: Readonly<Record<string, string>>;
  /** The same deployment's page-5000 row, whose ceiling this row is read against. */
  readonly ceilingRowName: string;
}

/**
 * Memory: peak resident set of a fresh real server under 50 concurrent 5000-meal requests
 * (target ≤ 250 MB on either backend). RSS counts the pages of the memory-mapped database
 * file too (RssFile), which belong to the page cache and are given back under pressure:
 * reported apart from the process's own memory (RssAnon).
 */
export async function memoryRows(context: BenchContext, target: MemoryTarget): Promise<ScenarioRow[]> {
  const connections = context.options.memoryConnections;
  const server = await startRealServer(target.db, undefined, target.serveArgs, target.serveEnv);
  try {
    const key = await context.createKey(target.db, HEAVY_USER);
    const request = firstPage(5000);
    const startRss = processMemory(server.pid).rssKb / 1024;
    // A longer window than the other loads: at 50 pages of 1.6 MB at once, a busy machine may
    // finish none in 3 s, and a peak with no page answered says nothing.
    const seconds = Math.max(context.options.measureSeconds, 8);
    const real = await context.measure(server, request, key, { connections, seconds });
    if (real.requests === 0) throw new Error(`${target.label}: no page of 5000 answered in ${seconds} s`);
    const peak = processMemory(server.pid);
    const ceilingRow = context.rows.find((row) => row.name === target.ceilingRowName);
    return [
      {
        ...loadRow(`${target.rowPrefix}memory-5000x${connections}`, real, undefined, {
          deployment: target.label,
          connections,
          vm_hwm_mb: Math.round((peak.hwmKb / 1024) * 10) / 10,
          rss_at_start_mb: Math.round(startRss * 10) / 10,
          user: HEAVY_USER,
        }),
        rss_mb: Math.round((peak.hwmKb / 1024) * 10) / 10,
        ceiling_rps: ceilingRow?.ceiling_rps ?? null,
        ratio: typeof ceilingRow?.ceiling_rps === 'number' ? ratio(real.rps, ceilingRow.ceiling_rps) : null,
        ceiling_from: `${target.ceilingRowName} (10 connections)`,
      },
    ];
  } finally {
    await server.stop();
  }
}

export const memory: Scenario = {
  name: 'memory',
  question: 'How much memory does the server hold under 50 concurrent 5000-meal requests?',
  run: (context) =>
    memoryRows(context, { rowPrefix: '', label: 'SQLite', db: context.big.db, ceilingRowName: 'page-5000' }),
};

/** The same on PostgreSQL + Redis: a fresh instance beside the scale-out's own server. */
export function scaleOutMemoryRows(context: BenchContext, scaleOut: ScaleOut): Promise<ScenarioRow[]> {
  return memoryRows(context, {
    rowPrefix: scaleOut.rowPrefix,
    label: scaleOut.label,
    db: scaleOut.db,
    serveArgs: scaleOut.serveArgs,
    serveEnv: scaleOut.serveEnv,
    ceilingRowName: `${scaleOut.rowPrefix}page-5000`,
  });
}
