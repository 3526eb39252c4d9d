import {
  cell,
  commitLatencyTable,
  fieldColumn,
  keptBlockHead,
  listCell,
  mark,
  rowTable,
  type KeptBlock,
} from './report-section.js';
import type { ScenarioRow } from './results.js';

/**
 * The report's webhooks section, between markers of its own, kept row by
 * row as the long-poll block is (report-long-poll.ts): `--only webhook-import-cost` rewrites
 * its rows and keeps the others'.
 */
export const WEBHOOKS_BEGIN = '<!-- webhooks:begin (written by npm run bench) -->';
export const WEBHOOKS_END = '<!-- webhooks:end -->';

function latencyTable(rows: readonly ScenarioRow[]): string[] {
  return commitLatencyTable({
    heading: 'Commit to call',
    rows: rows.filter((row) => row.name.startsWith('webhook-sqlite-') || row.name.startsWith('webhook-pg-')),
    about: [fieldColumn('committed by', 'committed_by'), fieldColumn('receiver trusted through', 'trust')],
    afterGoal: [fieldColumn('write p50 ms', 'write_p50_ms')],
    skippedColumns: 11,
    note:
      'Each sample is a fresh user with one endpoint at a local HTTPS receiver (port 0, a certificate made in the run, ' +
      '`204` at once; `serve --webhook-allow-private`, and `--webhook-ca FILE` or, in the `-default-trust` rows, the ' +
      'certificate in `NODE_EXTRA_CA_CERTS`, the process’s default store, as a public CA would be). 100–200 ms (random) after the previous call ' +
      'arrived, one meal of that user is written by a writer process that stays up (`meal-export/host` on command over ' +
      'IPC), so each sample is an event of its own and the dispatcher is at rest. **Commit to call**: from the moment the ' +
      'write returned in the writer to the moment the whole call had arrived at the receiver (the benchmark process), ' +
      'both clocks `performance.timeOrigin + performance.now()`, their offset measured by IPC round trips and taken ' +
      'off (as the long poll’s). On SQLite the sender (`serve`) hears of another process’s commit by its 100 ms look ' +
      'at `data_version`; on PostgreSQL both instances hear the NOTIFY and the lease gives the event to one. The ' +
      '`-default-trust` rows trust the receiver through `NODE_EXTRA_CA_CERTS` instead of `--webhook-ca`: since the ' +
      'sender builds its TLS context once (it built one per call, ≈ 50 ms of CPU, before), the two agree.',
  });
}

function throughputTable(rows: readonly ScenarioRow[]): string[] {
  const cases = rows.filter((candidate) => candidate.name.startsWith('webhook-calls-per-second'));
  const first = cases.find((row) => typeof row.skipped !== 'string');
  return rowTable({
    heading: 'Calls a second one sender sustains',
    columns: [
      'row',
      'receiver trusted through',
      'calls/s',
      'calls',
      'seconds',
      'server CPU µs/call',
      'server CPU %',
      'maxInFlight',
      'load avg',
    ],
    rows: cases,
    cells: (row) => [
      row.name,
      cell(row.trust),
      cell(row.rps),
      cell(row.calls),
      cell(row.seconds),
      cell(row.cpu_us_per_call),
      cell(row.server_cpu_pct),
      cell(row.max_in_flight),
      cell(row.load_avg),
    ],
    note:
      `${cell(first?.users)} users, each with one endpoint at the local receiver; one change of each committed (one upsert ` +
      `each, ${cell(first?.burst_writes_per_s)} a second, by a writer process) while no sender ran, so all the ` +
      'events were due when `serve` (SQLite, one process, `--webhook-allow-private`) started. Calls a second from the ' +
      'first call’s arrival to the last one’s; the server’s CPU (utime + stime) over the same window, per call. Every ' +
      'call is a new TLS connection (the sender’s `agent: false`: each call resolves and checks its address anew); ' +
      'the receiver shares the 2 cores with the server. With `--webhook-ca` the sender ' +
      'builds one TLS context from Node’s default roots plus the file, at start (per call it cost ≈ 50 ms of CPU: ' +
      '33 calls a second).',
  });
}

function importTable(rows: readonly ScenarioRow[]): string[] {
  return rowTable({
    heading: 'What the outbox costs the import path',
    columns: [
      'row',
      'meals × upserts',
      'no endpoint meals/s (best)',
      'one endpoint meals/s (best)',
      'endpoint / none (median of rounds)',
      'cost',
      'goal',
      'writer CPU µs/meal none / endpoint (cost)',
      'rounds meals/s (none; endpoint)',
      'load avg',
    ],
    rows: rows.filter((row) => row.name.startsWith('webhook-import-')),
    cells: (row) => [
      row.name,
      `${cell(row.meals)} in upserts of ${cell(row.batch)}`,
      cell(row.baseline_meals_per_s),
      cell(row.meals_per_s),
      cell(row.endpoint_vs_none),
      `${cell(row.cost_pct)} %`,
      `< ${cell(row.goal_cost_pct)} %: ${mark(row.goal_met)}`,
      `${cell(row.baseline_writer_cpu_us_per_meal)} / ${cell(row.writer_cpu_us_per_meal)} (${cell(row.writer_cpu_cost_pct)} %)`,
      `${listCell(row.rounds_none)}; ${listCell(row.rounds_endpoint)}`,
      cell(row.load_avg),
    ],
    note:
      'A writer process imports new meals through `meal-export/host` (`upsertMeals`, the path of `meals import`) for a ' +
      'user with no endpoint and for a user with one, in rounds on fresh users, the two in turn (which goes first ' +
      'alternates), and the single upserts go to the same users after their batches. The machine is shared: other ' +
      'work moves one round’s rate by 2–3 ×, so `endpoint / none` is the median over rounds of the ratio within a ' +
      'round (the two imports back to back), `cost` is 1 − that; the writer’s CPU per meal (`process.cpuUsage`, ' +
      'median of rounds) is the steadier figure on SQLite, whose engine runs in the writer (on PostgreSQL it leaves ' +
      'out the server’s share). ' +
      'No sender runs: each change after the first extends the endpoint’s open event, as between two claims. The ' +
      'baseline is the no-endpoint user of the same run.',
  });
}

/** The webhooks block, or undefined when the run measured none of its rows. */
export const webhooksBlock: KeptBlock = (rows, machine, command, loads) => {
  if (rows.length === 0) return undefined;
  return [
    ...keptBlockHead(WEBHOOKS_BEGIN, 'Webhooks', machine, command, loads),
    ...latencyTable(rows),
    ...throughputTable(rows),
    ...importTable(rows),
    WEBHOOKS_END,
  ].join('\n');
};
