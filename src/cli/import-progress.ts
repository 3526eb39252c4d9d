import { createStatusLine, type ProgressStream } from '../status-line.js';

/** How often the line is rewritten: often enough to look alive, rarely enough to cost nothing. */
export const IMPORT_PROGRESS_EVERY_MS = 250;

export interface ImportProgress {
  /**
   * The records read so far (cheap: called for every record; the line is drawn on a timer), and
   * for the import of every user's history, the records committed and the line they reach.
   */
  read(records: number, line?: number): void;
  /** Success: the line is replaced by a lasting one with the count, the time and the rate. */
  finished(): void;
  /** Failure: the line is cleared, for the one-line error. */
  failed(): void;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * `meals import`'s progress on a terminal (docs/cli.md#progress): records read and their rate,
 * rewritten in place every IMPORT_PROGRESS_EVERY_MS, then one lasting line. Off a terminal
 * nothing at all, so scripts and `--json` readers see what they always saw; stdout is never
 * touched.
 */
export function createImportProgress(stream: ProgressStream, now: () => number = performance.now.bind(performance)) {
  const line = createStatusLine(stream);
  const started = now();
  let records = 0;
  let reached: number | undefined;
  const summary = () => {
    const seconds = Math.max(now() - started, 1) / 1000;
    return { seconds, rate: Math.round(records / seconds) };
  };
  const draw = () => {
    const { rate } = summary();
    const where = reached === undefined ? 'read' : `committed, through line ${count(reached)}`;
    line.show(`importing: ${count(records)} records ${where} · ${count(rate)} records/s`);
  };
  const timer = line.tty ? setInterval(draw, IMPORT_PROGRESS_EVERY_MS) : undefined;
  timer?.unref();
  const stop = () => {
    if (timer !== undefined) clearInterval(timer);
  };

  const progress: ImportProgress = {
    read(total, line) {
      records = total;
      reached = line;
    },
    finished() {
      stop();
      if (!line.tty) return;
      const { seconds, rate } = summary();
      line.clear();
      line.print(`read ${count(records)} records in ${seconds.toFixed(1)} s (${count(rate)} records/s)`);
    },
    failed() {
      stop();
      line.clear();
    },
  };
  return progress;
}
