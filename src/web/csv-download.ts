import { PassThrough } from 'node:stream';
import { parseInstant } from '../domain/instant.js';
import type { Meal } from '../domain/meal.js';
import { type TextSink, writeMealExport } from '../meals-io/meal-export.js';
import type { Storage } from '../storage/storage.js';

const DAY_MS = 86_400_000;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

export interface DateRange {
  /** Inclusive, epoch ms; undefined: from the first meal. */
  readonly from: number | undefined;
  /** Exclusive, epoch ms (the day after the chosen last day); undefined: to the last meal. */
  readonly until: number | undefined;
}

/** The form's `from` and `to` (YYYY-MM-DD, each optional, `to` included), or undefined when malformed. */
export function parseDateRange(from: string | undefined, to: string | undefined): DateRange | undefined {
  const day = (text: string | undefined): number | undefined | false => {
    if (text === undefined || text === '') return undefined;
    return DATE_RE.test(text) ? (parseInstant(text) ?? false) : false;
  };
  const [start, end] = [day(from), day(to)];
  if (start === false || end === false) return undefined;
  if (start !== undefined && end !== undefined && start > end) return undefined;
  return { from: start, until: end === undefined ? undefined : end + DAY_MS };
}

async function* eatenWithin(meals: AsyncIterable<Meal>, range: DateRange): AsyncIterable<Meal> {
  for await (const meal of meals) {
    if ((range.from === undefined || meal.date >= range.from) && (range.until === undefined || meal.date < range.until))
      yield meal;
  }
}

/** A sink into a stream that waits when the reader is slow and stops when it has gone. */
function streamSink(out: PassThrough): TextSink {
  return {
    async write(text) {
      if (out.destroyed) return false;
      if (!out.write(text)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            out.off('drain', done);
            out.off('close', done);
            resolve();
          };
          out.once('drain', done);
          out.once('close', done);
        });
      }
      return !out.destroyed;
    },
  };
}

/**
 * The user's live meals eaten within the range, in the CSV of `meals export --for-spreadsheet`
 * (docs/app.md, docs/cli.md#meals, the same writer): a person opens it in a spreadsheet, so it
 * has a byte order mark and runs no formula. Streamed: one person's meals are never held whole.
 */
export function streamMealsCsv(storage: Storage, userId: string, range: DateRange, onError: (error: unknown) => void) {
  const out = new PassThrough();
  const meals = eatenWithin(storage.feed.exportMeals(userId, 0), range);
  writeMealExport(meals, 'csv', streamSink(out), { forSpreadsheet: true }).then(
    () => out.end(),
    (error: unknown) => {
      onError(error);
      out.destroy(error instanceof Error ? error : new Error(String(error)));
    },
  );
  return out;
}

/** A download name that says whose meals and which days, in characters safe in a header. */
export function csvFileName(userId: string, from: string | undefined, to: string | undefined): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
  const span = from || to ? `-${from || 'start'}-to-${to || 'now'}` : '';
  return `meals-${safe(userId)}${span}.csv`;
}
