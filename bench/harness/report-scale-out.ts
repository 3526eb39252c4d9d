import type { ScenarioRow } from './results.js';
import { cell } from './report-section.js';

/**
 * The report's scale-out part: the PostgreSQL + Redis rows beside the SQLite ones, with what
 * each tier spends per request, the sizes the capacity plan needs, the workers rows, and the
 * scenarios that could not run here.
 */

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function tiersTable(allRows: readonly ScenarioRow[]): string[] {
  const rows = allRows.filter((row) => row.rps !== null);
  const pairs = ['delta-poll', 'page-100', 'page-5000'].flatMap((name) =>
    [name, `pg-redis-${name}`].flatMap((rowName) => rows.filter((row) => row.name === rowName)),
  );
  if (!pairs.some((row) => row.name.startsWith('pg-redis-'))) return [];
  return [
    '| scenario | deployment | req/s | ratio | CPU ratio | service CPU µs/req | PostgreSQL CPU µs/req | Redis CPU µs/req | all tiers µs/req | EVALSHA calls / µs in Redis per req | load avg |',
    `|${'---|'.repeat(11)}`,
    ...pairs.map((row) => {
      const service = num(row.cpu_us_per_req) ?? 0;
      const pg = num(row.postgres_cpu_us_per_req);
      const redis = num(row.redis_cpu_us_per_req);
      const total = Math.round((service + (pg ?? 0) + (redis ?? 0)) * 10) / 10;
      return `| ${[row.name, cell(row.deployment ?? 'SQLite'), cell(row.rps), cell(row.ratio), cell(row.cpu_ratio), cell(row.cpu_us_per_req), cell(pg), cell(redis), cell(total), row.redis_evalsha_calls_per_req === undefined ? '' : `${cell(row.redis_evalsha_calls_per_req)} / ${cell(row.redis_evalsha_us_per_req)}`, cell(row.load_avg)].join(' | ')} |`;
    }),
    '',
  ];
}

function seedLines(rows: readonly ScenarioRow[]): string[] {
  const seed = rows.find((row) => row.name === 'pg-redis-seed' && row.skipped === undefined);
  if (seed === undefined) return [];
  const keyBytes = rows.map((row) => num(row.redis_bytes_per_key)).find((bytes) => bytes !== undefined);
  return [
    `PostgreSQL dataset: ${cell(seed.users)} users × 100 meals + ${cell(seed.heavy_users)} heavy users × 20000 = ${cell(seed.meals)} meals, ` +
      `seeded by \`seed\` into a database of the run's own at ${cell(seed.meals_per_s)} meals/s (${cell(seed.seconds)} s, ` +
      `${cell(seed.cpu_us_per_meal)} µs of the seed process's CPU per meal), then \`VACUUM (ANALYZE)\` (${cell(seed.vacuum_analyze_s)} s). ` +
      `Smaller than the SQLite database: the page queries read one user's index range, whose cost does not grow with the table (see the growth rows). ` +
      `Bytes per meal in PostgreSQL: ${cell(seed.bytes_per_meal_total)} in all (table and TOAST, ${cell(seed.bytes_per_meal_heap)} heap; ` +
      `primary key ${cell(seed.bytes_per_meal_primary_key)}; \`meals_by_id\` ${cell(seed.bytes_per_meal_by_id)}); ` +
      `${cell(seed.meals_total_mb)} MB for the meals table, ${cell(seed.database_mb)} MB for the database. ` +
      `Redis: ${keyBytes === undefined ? 'not measured' : `${keyBytes} bytes`} per API key's limiter hash (\`MEMORY USAGE\`). ` +
      `Counters read per load: ${cell(seed.counters_read)} (CPU from /proc: PostgreSQL, the backends of the run's database; Redis, the whole redis-server, shared with its other clients; EVALSHA from \`INFO commandstats\`, Redis's time inside the limiter's script, every client's).`,
    '',
  ];
}

function workersTable(rows: readonly ScenarioRow[]): string[] {
  const workers = rows.filter((row) => row.name.startsWith('workers-'));
  if (workers.length === 0) return [];
  return [
    '| scenario | processes | req/s | CPU µs/req (all processes) | of which the primary | CPU vs 1 worker | bare https: CPU vs 1 process | req/s vs 1 worker | p50 ms | p99 ms | RSS MB (sum) | load avg |',
    `|${'---|'.repeat(12)}`,
    ...workers.map(
      (row) =>
        `| ${[row.name, cell(row.processes), cell(row.rps), cell(row.cpu_us_per_req), row.processes === 1 ? '' : cell(row.primary_cpu_us_per_req), cell(row.cpu_vs_1_worker), cell(row.bare_cpu_vs_1_process), cell(row.rps_vs_1_worker), cell(row.p50_ms), cell(row.p99_ms), cell(row.rss_mb), cell(row.load_avg)].join(' | ')} |`,
    ),
    '',
    '`--workers 1` is one process (the default); `--workers 2` a primary (it holds the in-process limiter and hands the ' +
      'accepted connections over) and two workers. A key whose requests come to one worker is leased to it and decided ' +
      'there; a key asked about by both is decided by the primary, over IPC. `delta-poll`: one key on all 10 connections ' +
      '(so decided by the primary); `delta-poll-key-per-client`: each connection its own user and key, kept alive, as ' +
      'clients are (so each key decided in its worker). The load generator runs in the ' +
      'benchmark process on the same 2 cores, so the two workers never have a core each: req/s cannot double here, and ' +
      'CPU per request (summed over every process of the server) is the figure to read. Both servers run at once and are ' +
      'loaded in alternated rounds; each row is the round of median CPU. `bare https`: the same key-per-client load on bare ' +
      'node:https in as many processes, against one: what a second process costs on this machine anyway.',
    '',
  ];
}

export function scaleOutSection(rows: readonly ScenarioRow[]): string[] {
  const skipped = rows.filter((row) => typeof row.skipped === 'string');
  const body = [...tiersTable(rows), ...seedLines(rows), ...workersTable(rows)];
  const notRun = skipped.map((row) => `Not run: **${row.name}**: ${cell(row.skipped)}.`);
  if (body.length === 0 && notRun.length === 0) return [];
  return [
    '### Scale-out: PostgreSQL + Redis, and workers',
    '',
    ...body,
    ...(notRun.length === 0 ? [] : [...notRun, '']),
  ];
}
