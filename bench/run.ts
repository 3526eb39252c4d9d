import { mkdirSync } from 'node:fs';
import { createContext } from './harness/context.js';
import { ensureDataset } from './harness/datasets.js';
import { parseBenchOptions } from './harness/options.js';
import { loadAverage } from './harness/proc-stats.js';
import { runMealExport } from './harness/processes.js';
import { describeMachine, RESULTS_JSON, RESULTS_MD, writeReports } from './harness/report.js';
import { formatRow, type ScenarioRow } from './harness/results.js';
import type { Scenario } from './harness/scenario.js';
import { ensureServerCertificate, serverCertificate, startRealServer } from './harness/servers.js';
import { deltaPoll } from './scenarios/delta-poll.js';
import { fixedRate } from './scenarios/fixed-rate.js';
import { growth } from './scenarios/growth.js';
import { heldIdle } from './scenarios/held-idle.js';
import { hostImport } from './scenarios/host-import.js';
import { hostPut } from './scenarios/host-put.js';
import { importMemory } from './scenarios/import-memory.js';
import { longPoll } from './scenarios/long-poll.js';
import { longPollLatency } from './scenarios/long-poll-latency.js';
import { memory } from './scenarios/memory.js';
import { naive } from './scenarios/naive.js';
import { page100 } from './scenarios/page-100.js';
import { page5000 } from './scenarios/page-5000.js';
import {
  pgRedisDeltaPoll,
  pgRedisMemory,
  pgRedisPage100,
  pgRedisPage5000,
  pgRedisSeed,
} from './scenarios/scale-out.js';
import { seedThroughput } from './scenarios/seed-throughput.js';
import { webhookImportCost } from './scenarios/webhook-import-cost.js';
import { webhookLatency } from './scenarios/webhook-latency.js';
import { webhookThroughput } from './scenarios/webhook-throughput.js';
import { workers } from './scenarios/workers.js';
import { keyInfo } from './scenarios/key-info.js';
import { storeScale } from './scenarios/store-scale.js';

/**
 * `npm run bench` (full) and `npm run bench -- --quick`: seeds (or reuses) the databases,
 * starts the real server, runs each scenario against its same-run ceiling, and writes
 * bench/results.json and bench/RESULTS.md. `--only a,b` runs some scenarios; `--profile DIR`
 * starts the real server under `node --cpu-prof` (summarise with bench/profile-summary.ts).
 */

// In this order: fixed-rate reads page-100's maximum, naive and growth reuse earlier figures;
// the PostgreSQL + Redis rows follow the SQLite ones they compare with.
const SCENARIOS: readonly Scenario[] = [
  seedThroughput,
  deltaPoll,
  keyInfo,
  page100,
  page5000,
  pgRedisSeed,
  pgRedisDeltaPoll,
  pgRedisPage100,
  pgRedisPage5000,
  pgRedisMemory,
  workers,
  growth,
  naive,
  fixedRate,
  memory,
  longPollLatency,
  heldIdle,
  longPoll,
  webhookLatency,
  webhookThroughput,
  webhookImportCost,
  importMemory,
  hostPut,
  hostImport,
  // Only with `--scale 10m` (or `--only store-scale`): it loads 10 M meals, a quarter of an hour.
  storeScale,
];

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2));
  const unknown = options.only.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown scenario ${unknown.join(', ')}: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  const atScale = options.scale !== undefined;
  const selected = SCENARIOS.filter((s) =>
    s === storeScale
      ? atScale || options.only.includes(s.name)
      : options.only.includes(s.name) || (options.only.length === 0 && !atScale),
  );
  const started = performance.now();
  const machine = describeMachine();
  const loads = [loadAverage()];
  log(
    `meal-export bench (${options.quick ? 'quick' : 'full'}): ${machine.cores} cores, ${machine.cpu}, Node ${machine.node}`,
  );

  // Scenarios that bring their own stores and servers (long poll) need neither the seeded
  // databases (10 M meals in a full run) nor the real server on the big one.
  const standalone = selected.every((s) => s.standalone === true);
  const big = standalone ? undefined : await ensureDataset(options.big, log);
  const small = standalone ? undefined : await ensureDataset(options.small, log);
  if (options.profileDir !== undefined) mkdirSync(options.profileDir, { recursive: true });
  const real = big === undefined ? undefined : await startRealServer(big.db, options.profileDir);
  if (real === undefined) await ensureServerCertificate();
  const createdKeys: Array<{ db: string; id: string }> = [];
  const context = createContext({ options, big, small, real, certificate: serverCertificate(), log, createdKeys });
  const failures: string[] = [];
  try {
    for (const scenario of selected) {
      log(`\n${scenario.name}: ${scenario.question}`);
      try {
        const rows: ScenarioRow[] = await scenario.run(context);
        for (const row of rows) {
          context.rows.push(row);
          log(`  ${formatRow(row)}`);
        }
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        failures.push(`${scenario.name}: ${message}`);
        log(`  FAILED: ${message}`);
      }
    }
  } finally {
    await context.closeScaleOut();
    await real?.stop();
    for (const { db, id } of createdKeys) await runMealExport(['keys', 'revoke', id, '--json'], db);
  }
  loads.push(loadAverage());
  writeReports(context.rows, options, machine, loads);
  log(`\nwrote ${RESULTS_JSON} and ${RESULTS_MD} in ${Math.round((performance.now() - started) / 1000)} s`);
  if (failures.length > 0) {
    process.exitCode = 1;
    log(`${failures.length} scenario(s) failed`);
  }
}

await main();
