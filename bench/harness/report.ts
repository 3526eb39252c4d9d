import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchOptions } from './options.js';
import { ROOT } from './processes.js';
import { HOST_API_BEGIN, HOST_API_END, hostApiBlock } from './report-host-api.js';
import { IMPORT_BEGIN, IMPORT_END, importBlock } from './report-import.js';
import { LONG_POLL_BEGIN, LONG_POLL_END, longPollBlock } from './report-long-poll.js';
import { scaleOutSection } from './report-scale-out.js';
import { STORE_SCALE_BEGIN, STORE_SCALE_END, storeScaleBlock } from './report-store-scale.js';
import { WEBHOOKS_BEGIN, WEBHOOKS_END, webhooksBlock } from './report-webhooks.js';
import type { ScenarioRow } from './results.js';
import { cell, type KeptBlock, machineLine } from './report-section.js';

export const RESULTS_JSON = path.join(ROOT, 'bench', 'results.json');
export const RESULTS_MD = path.join(ROOT, 'bench', 'RESULTS.md');
// Every run rewrites what lies between these markers; notes written around them stay.
const BEGIN = '<!-- results:begin (written by npm run bench) -->';
const END = '<!-- results:end -->';

export interface Machine {
  readonly cores: number;
  readonly cpu: string;
  readonly node: string;
  readonly memoryGb: number;
  readonly date: string;
}

export function describeMachine(): Machine {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  return {
    cores: os.availableParallelism(),
    cpu: model.trim(),
    node: process.version,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    date: new Date().toISOString(),
  };
}

interface Target {
  readonly what: string;
  readonly measured: string;
  readonly met: boolean | undefined;
}

const find = (rows: readonly ScenarioRow[], name: string) => rows.find((row) => row.name === name);
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/**
 * A ratio target is met when both the rps ratio and the CPU ratio reach it: the rps ratio
 * alone flatters the server when the load generator, sharing the machine, caps the ceiling.
 */
function ratioTarget(rows: readonly ScenarioRow[], name: string, what: string, goal: number): Target {
  const row = find(rows, name);
  const rps = num(row?.ratio);
  const cpu = num(row?.cpu_ratio);
  if (rps === undefined || cpu === undefined) return { what, measured: 'not measured', met: undefined };
  return { what, measured: `${rps} (rps), ${cpu} (CPU per request)`, met: rps >= goal && cpu >= goal };
}

function targets(rows: readonly ScenarioRow[]): Target[] {
  const list = [
    ratioTarget(rows, 'page-100', 'page of 100 ≥ 0.30 × the HTTPS ceiling', 0.3),
    ratioTarget(rows, 'page-5000', 'page of 5000 ≥ 0.20 × the HTTPS ceiling', 0.2),
    ratioTarget(rows, 'delta-poll', 'delta poll ≥ 0.5 × the HTTPS ceiling', 0.5),
  ];
  const growthRows = rows.filter((row) => row.name.startsWith('growth-'));
  const growth = num(growthRows[1]?.p50_vs_10k);
  list.push({
    what: 'growth: big-database p50 ≤ 1.2 × the 10 k-meal p50 (page of 100, fixed rate)',
    measured:
      growth === undefined
        ? 'not measured'
        : `${growth} (${growthRows[1]?.p50_ms} ms on ${growthRows[1]?.name}, ${growthRows[0]?.p50_ms} ms on ${growthRows[0]?.name})`,
    met: growth === undefined ? undefined : growth <= 1.2,
  });
  const naive = find(rows, 'naive-page-5000');
  const naiveRps = num(naive?.real_vs_naive);
  const naiveCpu = num(naive?.real_vs_naive_cpu);
  list.push({
    what: '≥ 5 × the naive design on 5000-meal pages',
    measured: naiveRps === undefined ? 'not measured' : `${naiveRps} × (rps), ${naiveCpu} × (CPU per request)`,
    met: naiveRps === undefined || naiveCpu === undefined ? undefined : naiveRps >= 5 && naiveCpu >= 5,
  });
  const seed = find(rows, 'seed');
  const seedRate = num(seed?.meals_per_s);
  list.push({
    what: '`seed` ≥ 100 k meals/s',
    measured:
      seedRate === undefined
        ? 'not measured'
        : `${seedRate} meals/s (${seed?.meals} meals, fresh database); big database: ${seed?.big_meals_per_s} meals/s${seed?.big_seeded_this_run === true ? '' : ' (seeded by an earlier run)'}`,
    met: seedRate === undefined ? undefined : seedRate >= 100_000,
  });
  const keyInfo = find(rows, 'key-info');
  const keyCpu = num(keyInfo?.cpu_vs_delta_poll);
  list.push({
    what: "`GET /v1/key` CPU per request ≤ a delta poll's (same server, same run)",
    measured:
      keyCpu === undefined
        ? 'not measured'
        : `${keyCpu} × (${keyInfo?.cpu_us_per_req} µs against ${find(rows, 'key-info-delta-poll')?.cpu_us_per_req} µs)`,
    met: keyCpu === undefined ? undefined : keyCpu <= 1,
  });
  for (const memory of rows.filter((row) => /^(pg-redis-)?memory-/.test(row.name))) {
    const rss = num(memory.rss_mb);
    list.push({
      what: `peak RSS ≤ 250 MB under 50 concurrent 5000-meal requests (${String(memory.deployment ?? 'SQLite')})`,
      measured:
        rss === undefined
          ? 'not measured'
          : `${rss} MB peak RSS (VmHWM); sampled peaks: ${memory.rss_anon_mb} MB anonymous (heap, buffers), ${memory.rss_file_mb} MB file-backed (mapped database, code)`,
      met: rss === undefined ? undefined : rss <= 250,
    });
  }
  return list;
}

/** The HTTP scenarios' table (the seed row has no requests: it is in the targets). */
function table(allRows: readonly ScenarioRow[]): string {
  const rows = allRows.filter((row) => row.rps !== null);
  const head =
    '| scenario | req/s | p50 ms | p99 ms | CPU µs/req | RSS MB | ceiling req/s | ratio | CPU ratio | ceiling CPU µs/req | client CPU % (real / ceiling) |';
  const lines = rows.map((row) =>
    [
      row.name,
      cell(row.rps),
      cell(row.p50_ms),
      cell(row.p99_ms),
      cell(row.cpu_us_per_req),
      cell(row.rss_mb),
      cell(row.ceiling_rps),
      cell(row.ratio),
      cell(row.cpu_ratio),
      cell(row.ceiling_cpu_us_per_req),
      row.client_cpu_pct === undefined ? '' : `${cell(row.client_cpu_pct)} / ${cell(row.ceiling_client_cpu_pct)}`,
    ].join(' | '),
  );
  return [head, `|${'---|'.repeat(11)}`, ...lines.map((line) => `| ${line} |`)].join('\n');
}

function generated(rows: readonly ScenarioRow[], options: BenchOptions, machine: Machine, loads: readonly number[]) {
  const mark = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? '**met**' : '**not met**');
  const targetLines = targets(rows).map((t) => `| ${t.what} | ${t.measured} | ${mark(t.met)} |`);
  return [
    BEGIN,
    options.only.length === 0
      ? `## Run of ${machine.date} (\`npm run bench${options.quick ? ' -- --quick' : ''}\`)`
      : `## Run of ${machine.date} (\`--only ${options.only.join(',')}\`${options.quick ? ', quick' : ''}) over the rows of the runs before: ` +
        'each row’s `run_at` in results.json says when it was measured',
    '',
    machineLine(machine),
    `Big database: ${options.big.users} users × ${options.big.mealsPerUser} meals + ${options.big.heavyUsers} heavy users × ${options.big.heavyMeals}; ` +
      `${options.connections} connections, pipelining 1, ${options.warmupSeconds} s warm-up, then ${options.measureSeconds} s measured on the same connections per load. ` +
      `Load average (1 min) at start / end: ${loads.join(' / ')}.`,
    '',
    table(rows),
    '',
    '### Targets',
    '',
    '| target | measured | |',
    '|---|---|---|',
    ...targetLines,
    '',
    ...scaleOutSection(rows),
    'How to read it: each load is autocannon in the benchmark process on loopback against one server process; ' +
      '`ratio` is req/s over the ceiling’s req/s for the same bytes in the same run, `CPU ratio` the ceiling’s server CPU per ' +
      'request over this one’s (the fairer figure when the load generator, on the other core, caps the ceiling: see the client CPU column). ' +
      'Growth rows: req/s and CPU at saturation, p50/p99 at one fixed rate below it. Fixed-rate rows: p50/p99 at that rate. ' +
      'RSS: the peak of VmRSS sampled every 100 ms during the load (memory row: VmHWM of a fresh server).',
    END,
  ].join('\n');
}

/** The section of the report a row belongs in: its `section`, or the main block. */
const sectionOf = (row: ScenarioRow) => (typeof row.section === 'string' ? row.section : 'main');
/** The blocks kept row by row: their section, their markers, and what writes them, in the report's order. */
const KEPT_BLOCKS: ReadonlyArray<readonly [string, string, string, KeptBlock]> = [
  ['long-poll', LONG_POLL_BEGIN, LONG_POLL_END, longPollBlock],
  ['webhooks', WEBHOOKS_BEGIN, WEBHOOKS_END, webhooksBlock],
  ['import', IMPORT_BEGIN, IMPORT_END, importBlock],
  ['host-api', HOST_API_BEGIN, HOST_API_END, hostApiBlock],
  ['store-scale', STORE_SCALE_BEGIN, STORE_SCALE_END, storeScaleBlock],
];
/** Sections whose rows are kept one by one until a run measures them again (standalone scenarios, often run alone). */
const KEPT_BY_ROW = new Set(KEPT_BLOCKS.map(([section]) => section));
const SECTION_ORDER = ['main', ...KEPT_BLOCKS.map(([section]) => section)];

/**
 * The rows of the runs before with this run's in their places (a row of the same name), those
 * `keep` says no to dropped, and this run's new rows after them.
 */
function inPlace(
  previous: readonly ScenarioRow[],
  measured: readonly ScenarioRow[],
  keep: (row: ScenarioRow) => boolean,
): ScenarioRow[] {
  const fresh = new Map(measured.map((row) => [row.name, row]));
  const placed = previous.flatMap((row) => {
    const again = fresh.get(row.name);
    fresh.delete(row.name);
    return again !== undefined ? [again] : keep(row) ? [row] : [];
  });
  return [...placed, ...fresh.values()];
}

function readPreviousRows(): ScenarioRow[] {
  try {
    const rows: unknown = JSON.parse(readFileSync(RESULTS_JSON, 'utf8'));
    return Array.isArray(rows) ? (rows as ScenarioRow[]) : [];
  } catch {
    return [];
  }
}

/**
 * Puts `block` between its markers in `text`; when they are not there, after the title (the
 * main block) or at the end (a section of its own, below the notes on the main block).
 */
function placeBlock(text: string, begin: string, end: string, block: string, where: 'top' | 'end'): string {
  const at = text.indexOf(begin);
  const to = text.indexOf(end);
  if (at >= 0 && to > at) return `${text.slice(0, at)}${block}${text.slice(to + end.length)}`;
  if (where === 'end') return `${text.trimEnd()}\n\n${block}\n`;
  const cut = text.indexOf('\n') + 1;
  return `${text.slice(0, cut)}\n${block}\n${text.slice(cut)}`;
}

/**
 * Writes results.json and the blocks of RESULTS.md that this run measured: the main block
 * when it ran any of its scenarios (from this run's rows only, or, in a run of some scenarios
 * (`--only`), with the other rows as the runs before left them, in their places), the long-poll,
 * webhooks, import and host API blocks when it ran any of theirs (each of their rows from the latest
 * run that measured it). A block this run did not touch, and its rows in results.json, stay as the
 * run that wrote them left them. Each row says when it was measured (`run_at`).
 */
export function writeReports(
  rows: readonly ScenarioRow[],
  options: BenchOptions,
  machine: Machine,
  loads: readonly number[],
) {
  const measured = rows.map((row) => ({ run_at: machine.date, ...row }));
  const ran = new Set(measured.map(sectionOf));
  const partial = options.only.length > 0;
  // The main block is one whole run's, or a partial run's over the rows of the runs before; the
  // other blocks keep each row until a run measures it again (their scenarios are standalone and
  // often run alone: `--only follow-vs-poll`).
  const all = inPlace(
    readPreviousRows(),
    measured,
    (row) => partial || KEPT_BY_ROW.has(sectionOf(row)) || !ran.has(sectionOf(row)),
  ).sort((a, b) => SECTION_ORDER.indexOf(sectionOf(a)) - SECTION_ORDER.indexOf(sectionOf(b)));
  writeFileSync(RESULTS_JSON, `${JSON.stringify(all, null, 2)}\n`);
  let text: string;
  try {
    text = readFileSync(RESULTS_MD, 'utf8');
  } catch {
    text = '# Benchmark results\n';
  }
  if (measured.some((row) => sectionOf(row) === 'main')) {
    const mainRows = all.filter((row) => sectionOf(row) === 'main');
    text = placeBlock(text, BEGIN, END, generated(mainRows, options, machine, loads), 'top');
  }
  const flags = [
    ...(options.quick ? ['--quick'] : []),
    ...(options.only.length > 0 ? [`--only ${options.only.join(',')}`] : []),
    ...(options.scale === undefined ? [] : [`--scale ${options.scale.label}`]),
  ];
  const command = `npm run bench${flags.length > 0 ? ` -- ${flags.join(' ')}` : ''}`;
  for (const [section, begin, end, block] of KEPT_BLOCKS) {
    const rowsOf = ran.has(section) ? all.filter((row) => sectionOf(row) === section) : [];
    const written = block(rowsOf, machine, command, loads);
    if (written !== undefined) text = placeBlock(text, begin, end, written, 'end');
  }
  writeFileSync(RESULTS_MD, text);
  // The project's formatter lays the tables out, so `npm run lint` stays clean after a run.
  const prettier = path.join(ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
  execFileSync(process.execPath, [prettier, '--write', RESULTS_MD], { cwd: ROOT, stdio: 'ignore' });
}
