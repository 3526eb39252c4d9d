import { PassThrough } from 'node:stream';
import { parseInstant } from '../domain/instant.js';
import type { Meal } from '../domain/meal.js';
import { localClockOf } from '../domain/utc-offset.js';
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

/** A day of the form (YYYY-MM-DD) as epoch ms; undefined when left empty, false when not a day. */
function day(text: string | undefined): number | undefined | false {
  if (text === undefined || text === '') return undefined;
  return DATE_RE.test(text) ? (parseInstant(text) ?? false) : false;
}

/** What stops the form's dates being used: the fields that are not days, or their order. */
export type DateRangeProblem = { readonly notDays: readonly ('from' | 'to')[] } | 'order';

export function dateRangeProblem(from: string | undefined, to: string | undefined): DateRangeProblem | undefined {
  const [start, end] = [day(from), day(to)];
  const notDays: ('from' | 'to')[] = [];
  if (start === false) notDays.push('from');
  if (end === false) notDays.push('to');
  if (notDays.length > 0) return { notDays };
  return start !== undefined && end !== undefined && start > end ? 'order' : undefined;
}

/** The form's `from` and `to` (YYYY-MM-DD, each optional, `to` included), or undefined when they cannot be used. */
export function parseDateRange(from: string | undefined, to: string | undefined): DateRange | undefined {
  const [start, end] = [day(from), day(to)];
  if (dateRangeProblem(from, to) !== undefined || start === false || end === false) return undefined;
  return { from: start, until: end === undefined ? undefined : end + DAY_MS };
}

/**
 * The meals of the range's days, each on the day it belongs to (docs/app.md#the-csv-downloads-dates):
 * its local day where its utcOffset is known, its UTC day where not. The range's bounds are
 * midnights on a UTC clock, so a meal's instant is moved to its local clock before comparing.
 */
async function* eatenWithin(meals: AsyncIterable<Meal>, range: DateRange): AsyncIterable<Meal> {
  for await (const meal of meals) {
    const clock = localClockOf(meal.date, meal.utcOffset);
    if ((range.from === undefined || clock >= range.from) && (range.until === undefined || clock < range.until)) {
      yield meal;
    }
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

/** Whether the user ate any meal within the range: a download would have rows. */
export async function hasMealsWithin(storage: Storage, userId: string, range: DateRange): Promise<boolean> {
  const meals = eatenWithin(storage.feed.exportMeals(userId, 0), range)[Symbol.asyncIterator]();
  const first = await meals.next();
  await meals.return?.(); // closes the store's read
  return first.done !== true;
}

/**
 * The user's live meals eaten within the range, in the CSV of `meals export --for-spreadsheet`
 * (docs/app.md, docs/cli.md#meals, the same writer): a person opens it in a spreadsheet, so it
 * has a byte order mark and runs no formula. Streamed: one person's meals are never held whole.
 * Undefined when no meal is in the range: the page says so rather than give a file of headers.
 */
export async function openMealsCsv(
  storage: Storage,
  userId: string,
  range: DateRange,
  onError: (error: unknown) => void,
): Promise<PassThrough | undefined> {
  const within = eatenWithin(storage.feed.exportMeals(userId, 0), range)[Symbol.asyncIterator]();
  const first = await within.next();
  if (first.done === true) return undefined;
  // One read of the store: the meal looked at first, then the rest of the same read.
  const meals = (async function* () {
    yield first.value;
    yield* { [Symbol.asyncIterator]: () => within };
  })();
  const out = new PassThrough();
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
