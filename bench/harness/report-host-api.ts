import { both, cell, keptBlockHead, listCell, mark, rowTable, type KeptBlock } from './report-section.js';
import type { ScenarioRow } from './results.js';

/**
 * The report's host API section, between markers of its own, kept row by row as the webhooks
 * block is (report-webhooks.ts): `--only host-put` rewrites its rows and keeps host-import's.
 */
export const HOST_API_BEGIN = '<!-- host-api:begin (written by npm run bench) -->';
export const HOST_API_END = '<!-- host-api:end -->';

const STORE: Readonly<Record<string, string>> = { sqlite: 'SQLite', pg: 'PostgreSQL' };
const storeOf = (row: ScenarioRow) => STORE[String(row.backend)] ?? String(row.backend);

const putRows = (rows: readonly ScenarioRow[]) => rows.filter((row) => /^host-put-[a-z]+$/.test(row.name));
const fixedRows = (rows: readonly ScenarioRow[]) => rows.filter((row) => row.name.endsWith('-per-s'));
const importRows = (rows: readonly ScenarioRow[]) => rows.filter((row) => row.name.startsWith('host-import-'));

/** One line of the targets table per goal a row carries. */
function targets(rows: readonly ScenarioRow[]): string[] {
  const line = (what: string, row: ScenarioRow, measured: string, met: unknown) =>
    typeof row.skipped === 'string'
      ? `| ${what} | skipped: ${cell(row.skipped)} | not measured |`
      : `| ${what} | ${measured} | ${mark(met)} |`;
  return [
    ...putRows(rows).map((row) =>
      line(
        `single-meal PUT ≥ ${cell(row.goal_vs_in_process ?? 0.5)} × in-process \`saveMeal\` writes/s (${storeOf(row)})`,
        row,
        `${cell(row.vs_in_process)} (${cell(row.writes_per_s)} against ${cell(row.baseline_writes_per_s)} writes/s); ` +
          `CPU per write ${cell(row.cpu_vs_in_process)} (${cell(row.cpu_us_per_req)} µs a PUT, ${cell(row.baseline_cpu_us_per_write)} µs in process)` +
          (row.durable_commits_per_s === undefined
            ? ''
            : `; in-process saves ${cell(row.baseline_vs_durable_commit)} × a bare one-row commit’s rate (${cell(row.durable_commits_per_s)}/s)`),
        row.goal_met,
      ),
    ),
    ...fixedRows(rows).map((row) =>
      line(
        `PUT p99 < ${cell(row.goal_p99_ms ?? 20)} ms at ${cell(row.offered_per_s ?? 500)} writes/s offered (${storeOf(row)})`,
        row,
        `p99 ${cell(row.p99_ms)} ms (p50 ${cell(row.p50_ms)} ms, ${cell(row.rps)} answered/s)` +
          (row.ceiling_p99_ms === undefined
            ? ''
            : `; the ceiling’s p99 at the same rate ${cell(row.ceiling_p99_ms)} ms`),
        row.goal_met,
      ),
    ),
    ...importRows(rows).flatMap((row) => [
      line(
        `HTTP import ≥ ${cell(row.goal_vs_cli ?? 0.7)} × \`meals import\` meals/s, ${cell(row.large)} meals (${storeOf(row)})`,
        row,
        `${cell(row[`vs_cli_${String(row.large)}`])} (${cell(row[`http_meals_per_s_${String(row.large)}`])} against ${cell(row[`cli_meals_per_s_${String(row.large)}`])} meals/s)`,
        row.goal_met,
      ),
      line(
        `import's peak anonymous memory flat: ${cell(row.large)} / ${cell(row.small)} meals ≤ ${cell(row.goal_anon_ratio ?? 1.25)} (${storeOf(row)})`,
        row,
        `${cell(row.anon_ratio)} (${cell(row[`peak_anon_${String(row.small)}_mb`])} → ${cell(row[`peak_anon_${String(row.large)}_mb`])} MB; VmHWM ${cell(row.rss_ratio)})`,
        row.memory_goal_met,
      ),
    ]),
  ];
}

function putTable(rows: readonly ScenarioRow[]): string[] {
  const cases = putRows(rows);
  const first = cases.find((row) => typeof row.skipped !== 'string');
  return rowTable({
    heading: 'Single-meal PUT: writes a second',
    columns: [
      'row',
      'PUT writes/s (median)',
      'in-process writes/s (median)',
      'PUT / in-process (median of rounds)',
      'goal',
      'server CPU µs/PUT',
      'in-process CPU µs/write',
      'PostgreSQL CPU µs/PUT; /write in process',
      'ceiling: PUT/s, CPU µs/PUT',
      'p50 / p99 ms',
      'server / client CPU %',
      'rounds writes/s (PUT; in-process)',
      'load avg',
    ],
    rows: cases,
    cells: (row) => [
      row.name,
      cell(row.writes_per_s),
      cell(row.baseline_writes_per_s),
      cell(row.vs_in_process),
      `≥ ${cell(row.goal_vs_in_process)}: ${mark(row.goal_met)}`,
      cell(row.cpu_us_per_req),
      cell(row.baseline_cpu_us_per_write),
      row.pg_cpu_us_per_put === undefined
        ? ''
        : `${cell(row.pg_cpu_us_per_put)}; ${cell(row.baseline_pg_cpu_us_per_write)}`,
      row.ceiling_rps === null ? '' : `${cell(row.ceiling_rps)}, ${cell(row.ceiling_cpu_us_per_req)}`,
      both(row, 'p50_ms', 'p99_ms'),
      both(row, 'server_cpu_pct', 'client_cpu_pct'),
      `${listCell(row.rounds_put)}; ${listCell(row.rounds_in_process)}`,
      cell(row.load_avg),
    ],
    note:
      `A load client process (node:https, ${cell(first?.connections)} keep-alive TLS connections, a closed loop on each) PUTs ` +
      `one new meal a request (\`{"type","date","title","caloriesTotal"}\`, a new id each) for ${cell(first?.seconds_per_round)} s ` +
      'to `serve --host-api-port` with a service token made by `service-tokens create`. The baseline is `meal-export/host` ' +
      '(`saveMeal` of one meal with its id, one call after another, the store opened as `openMealHost` opens it) in a ' +
      `writer process of its own on the same store, ${cell(first?.baseline_meals_per_round)} meals a round on SQLite. ` +
      'Rounds of both, which goes first alternating, each on ' +
      'fresh users: `PUT / in-process` is the median of the ratios within a round (the machine is shared). CPU: the ' +
      'server’s utime + stime over the window per PUT; the writer’s `process.cpuUsage` per write (both leave out the ' +
      'database’s); **PostgreSQL CPU**: utime + stime of the backends of the store’s database (from /proc, its shared ' +
      'WAL writer and checkpointer left out) over the same windows, per PUT and per in-process write. p50/p99 of the ' +
      'closed loop are of the median round: they measure the queue of ' +
      `${cell(first?.connections)} connections, not the work. **Ceiling** (SQLite row): bare node:https on the same ` +
      'certificate writing the bytes of a real PUT’s answer (bench/harness/ceiling-server.ts), under the same client ' +
      'and load, after the rounds: what Node’s HTTP and TLS take for a PUT here before any of the service’s work.',
  });
}

function fixedRateTable(rows: readonly ScenarioRow[]): string[] {
  return rowTable({
    heading: 'Single-meal PUT at a fixed rate',
    columns: [
      'row',
      'offered/s',
      'answered/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'goal',
      'ceiling p50 / p99 / max ms',
      'server CPU µs/PUT',
      'PostgreSQL CPU µs/PUT',
      'server / client CPU %',
      'load avg',
    ],
    rows: fixedRows(rows),
    cells: (row) => [
      row.name,
      cell(row.offered_per_s),
      cell(row.rps),
      cell(row.p50_ms),
      cell(row.p99_ms),
      cell(row.max_ms),
      `p99 < ${cell(row.goal_p99_ms)} ms: ${mark(row.goal_met)}`,
      row.ceiling_p99_ms === undefined
        ? ''
        : `${cell(row.ceiling_p50_ms)} / ${cell(row.ceiling_p99_ms)} / ${cell(row.ceiling_max_ms)}`,
      cell(row.cpu_us_per_req),
      row.pg_cpu_us_per_put === undefined ? '' : cell(row.pg_cpu_us_per_put),
      both(row, 'server_cpu_pct', 'client_cpu_pct'),
      cell(row.load_avg),
    ],
    note:
      'An open loop from the same client and connections: PUT number i is due at start + i / rate, sent then whatever ' +
      'the answers before it do (queued for a free connection when all are busy), and its latency counts from when it ' +
      'was due, to the whole answer read: a server that falls behind shows in p99 instead of slowing the load down. ' +
      'The ceiling (SQLite row) under the same open loop gives what this machine adds to any server’s latency then.',
  });
}

function importTable(rows: readonly ScenarioRow[]): string[] {
  const cases = importRows(rows);
  const first = cases.find((row) => typeof row.skipped !== 'string');
  const [small, large] = [String(first?.small), String(first?.large)];
  return rowTable({
    heading: 'Import over HTTP against `meals import`',
    columns: [
      'row',
      `HTTP meals/s (${small} / ${large})`,
      '`meals import` meals/s',
      'HTTP / CLI (median of rounds)',
      `goal (${large})`,
      'serving process peak RSS, VmHWM MB',
      'peak anon MB',
      'idle anon MB',
      `anon ${large} / ${small}`,
      'goal',
      'CLI start-up ms',
      'load avg',
    ],
    rows: cases,
    cells: (row) => {
      const at = (field: string) => both(row, field.replace('@', small), field.replace('@', large));
      return [
        row.name,
        at('http_meals_per_s_@'),
        at('cli_meals_per_s_@'),
        at('vs_cli_@'),
        `≥ ${cell(row.goal_vs_cli)}: ${mark(row.goal_met)}`,
        at('peak_rss_@_mb'),
        at('peak_anon_@_mb'),
        at('idle_anon_@_mb'),
        cell(row.anon_ratio),
        `≤ ${cell(row.goal_anon_ratio)}: ${mark(row.memory_goal_met)}`,
        cell(row.cli_fixed_ms),
        cell(row.load_avg),
      ];
    },
    note:
      'Each file is JSON Lines of synthetic meals with ids of their own user (about 295 bytes a line; the import takes ' +
      'at most 64 MiB), made for one import and imported twice: by `meals import FILE --json` (a process of its own, ' +
      'timed from spawn to exit) into one store, and by `POST /host/v1/users/{userId}/meals/import` ' +
      '(`application/x-ndjson`, streamed from disk with its length, timed to the whole answer) into another store of ' +
      `the same kind, in ${cell(first?.rounds)} rounds, which goes first alternating. Each HTTP import has a \`serve\` ` +
      'started for it alone, so its **VmHWM** is that import’s peak (the process’s code and start-up included); **anon** ' +
      'is the largest `RssAnon` sampled every 20 ms during the import (its heap and buffers), **idle anon** the ' +
      'same just before it. CLI start-up: a one-meal `meals import` of the same store (process start, modules, opening ' +
      'the store), which every CLI figure includes and no HTTP one does.',
  });
}

/** The host API block, or undefined when the run measured none of its rows. */
export const hostApiBlock: KeptBlock = (rows, machine, command, loads) => {
  if (rows.length === 0) return undefined;
  return [
    ...keptBlockHead(HOST_API_BEGIN, 'Host API', machine, command, loads),
    '### Targets',
    '',
    '| target | measured | |',
    '|---|---|---|',
    ...targets(rows),
    '',
    ...putTable(rows),
    ...fixedRateTable(rows),
    ...importTable(rows),
    HOST_API_END,
  ].join('\n');
};
