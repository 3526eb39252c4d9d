import type { Machine } from './report.js';

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
