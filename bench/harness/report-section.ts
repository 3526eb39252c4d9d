import type { Machine } from './report.js';
import type { ScenarioRow } from './results.js';

/** A block of the report kept row by row (report.ts KEPT_BLOCKS): its text, or nothing when the run measured none of its rows. */
export type KeptBlock = (
  rows: readonly ScenarioRow[],
  machine: Machine,
  command: string,
  loads: readonly number[],
) => string | undefined;

/** A table cell: empty for a figure the row has not measured. */
export const cell = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** The machine a run measured on, as every block of the report states it. */
export function machineLine(machine: Machine): string {
  return `Machine: ${machine.cores} cores (\`nproc\`), ${machine.cpu}, ${machine.memoryGb} GiB; Node ${machine.node}.`;
}

/**
 * The opening lines of a block kept row by row (long poll, webhooks, import): its begin marker,
 * its heading and the machine, with the run's load average at its start and end.
 */
export function keptBlockHead(
  begin: string,
  title: string,
  machine: Machine,
  command: string,
  loads: readonly number[],
): string[] {
  return [
    begin,
    `## ${title}: last written by the run of ${machine.date} (\`${command}\`); each row is from the latest run that measured it (its load average says how busy the machine was)`,
    '',
    `${machineLine(machine)} Load average (1 min) at start / end of the run: ${loads.join(' / ')}.`,
    '',
  ];
}

/** A goal's verdict as the report writes it. */
export const mark = (met: unknown): string =>
  met === true ? '**met**' : met === false ? '**not met**' : 'not measured';

/** The row of a case that was skipped, in a table of `columns` columns. */
export const skippedLine = (row: ScenarioRow, columns: number): string =>
  `| ${row.name} | skipped: ${cell(row.skipped)} ${'|'.repeat(columns - 1)}`;

/** Several figures in one cell: `a / b`. */
export const both = (row: ScenarioRow, a: string, b: string): string => `${cell(row[a])} / ${cell(row[b])}`;

/** A list of figures (the rounds' rates) in one cell. */
export const listCell = (value: unknown): string => (Array.isArray(value) ? value.join(', ') : '');

/**
 * A table of a block: its heading, then a line a row (a skipped case's reason spanning
 * `skippedColumns`, else the whole width), then the note on how it was measured. Nothing when
 * the run measured none of its rows.
 */
export function rowTable(table: {
  readonly heading?: string;
  readonly columns: readonly string[];
  readonly rows: readonly ScenarioRow[];
  readonly cells: (row: ScenarioRow) => readonly string[];
  readonly skippedColumns?: number;
  readonly note: string;
}): string[] {
  if (table.rows.length === 0) return [];
  const { columns } = table;
  return [
    ...(table.heading === undefined ? [] : [`### ${table.heading}`, '']),
    `| ${columns.join(' | ')} |`,
    `|${'---|'.repeat(columns.length)}`,
    ...table.rows.map((row) =>
      typeof row.skipped === 'string'
        ? skippedLine(row, table.skippedColumns ?? columns.length)
        : `| ${table.cells(row).join(' | ')} |`,
    ),
    '',
    table.note,
    '',
  ];
}

/** A column of a commit-latency table: its heading and its cell. */
export interface LatencyColumn {
  readonly heading: string;
  readonly cell: (row: ScenarioRow) => string;
}

/** Columns of one field each. */
export const fieldColumn = (heading: string, field: string): LatencyColumn => ({
  heading,
  cell: (row) => cell(row[field]),
});

/**
 * A commit-latency table (the long poll's commit to answer, the webhooks' commit to call): the
 * case, what describes it, the samples and their p50, p99 and max, figures of its own, the
 * goal, more of its own, then the clocks' offset and the load average; then the note on how
 * it was measured.
 */
export function commitLatencyTable(table: {
  readonly heading: string;
  readonly rows: readonly ScenarioRow[];
  readonly about: readonly LatencyColumn[];
  readonly beforeGoal?: readonly LatencyColumn[];
  readonly afterGoal?: readonly LatencyColumn[];
  /** The width a skipped row spans. */
  readonly skippedColumns: number;
  readonly note: string;
}): string[] {
  const columns: LatencyColumn[] = [
    { heading: 'case', cell: (row) => row.name },
    ...table.about,
    fieldColumn('samples', 'samples'),
    fieldColumn('p50 ms', 'p50_ms'),
    fieldColumn('p99 ms', 'p99_ms'),
    fieldColumn('max ms', 'max_ms'),
    ...(table.beforeGoal ?? []),
    { heading: 'goal', cell: (row) => `p99 < ${cell(row.goal_p99_ms)} ms: ${mark(row.goal_met)}` },
    ...(table.afterGoal ?? []),
    {
      heading: 'clock offset ms',
      cell: (row) => `${cell(row.clock_offset_ms)} ± ${cell(row.clock_offset_within_ms)}`,
    },
    fieldColumn('load avg', 'load_avg'),
  ];
  return rowTable({
    heading: table.heading,
    columns: columns.map((column) => column.heading),
    rows: table.rows,
    cells: (row) => columns.map((column) => column.cell(row)),
    skippedColumns: table.skippedColumns,
    note: table.note,
  });
}
