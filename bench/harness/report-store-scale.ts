import { cell, keptBlockHead, rowTable, type KeptBlock } from './report-section.js';
import type { ScenarioRow } from './results.js';

/** The report's store-scale section (`--scale 10m`), between markers of its own, kept row by row. */
export const STORE_SCALE_BEGIN = '<!-- store-scale:begin (written by npm run bench -- --scale) -->';
export const STORE_SCALE_END = '<!-- store-scale:end -->';

/** The detail a row carries beside its two figures, as `name value` pairs. */
function detail(row: ScenarioRow): string {
  const shown = new Set(['name', 'section', 'figure', 'base', 'big', 'growth', 'goal', 'run_at']);
  return Object.entries(row)
    .filter(([key, value]) => !shown.has(key) && value !== null && typeof value !== 'object')
    .filter(([key]) => !['rps', 'p50_ms', 'p99_ms', 'cpu_us_per_req', 'rss_mb', 'ceiling_rps', 'ratio'].includes(key))
    .map(([key, value]) => `${key} ${cell(value)}`)
    .join('; ');
}

export const storeScaleBlock: KeptBlock = (rows, machine, command, loads) => {
  if (rows.length === 0) return undefined;
  const stores = rows.find((row) => row.name === 'scale-stores');
  const beside = rows.find((row) => row.name === 'scale-poll-beside-load');
  const measured = rows.filter((row) => row !== stores && row !== beside);
  const meals = (value: unknown) => (typeof value === 'number' ? `${Math.round(value / 1e5) / 10} M meals` : '');
  return [
    ...keptBlockHead(STORE_SCALE_BEGIN, 'PostgreSQL at scale', machine, command, loads),
    ...rowTable({
      columns: ['figure', meals(stores?.base_meals), meals(stores?.big_meals), 'big / small', 'goal', 'detail'],
      rows: measured,
      skippedColumns: 5,
      cells: (row) => [cell(row.figure), cell(row.base), cell(row.big), cell(row.growth), cell(row.goal), detail(row)],
      note:
        'Two stores on the same PostgreSQL server, each loaded by `meals import --all-users` of a history file of ' +
        "`seed`'s synthetic meals (regular users of 100 meals and 5 heavy users of 20 000), each served by its own " +
        '`serve` with Redis; the requests measured on both, alternating, twice, at the run’s connections (the ' +
        'big store’s figure over the small one’s in **big / small**). CPU per request is the service’s, its ' +
        'PostgreSQL backends’ and redis-server’s. The prune: every meal of a tenth of the regular users deleted (the DELETE’s own SQL function), then ' +
        '`pruneTombstones` timed as `serve` runs it hourly.',
    }),
    ...(beside === undefined
      ? []
      : [
          `The delta poll beside the big store's load, at ${cell(beside.rate)} requests a second: p99 ` +
            `${cell(beside.during_p99_ms)} ms while the load ran (${cell(beside.during_rps)} req/s answered; the load ran ` +
            `throughout: ${cell(beside.load_ran_throughout)}), ${cell(beside.idle_p99_ms)} ms idle after it.`,
          '',
        ]),
    STORE_SCALE_END,
  ].join('\n');
};
