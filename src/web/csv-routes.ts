import type { FastifyInstance } from 'fastify';
import { csvFileName, dateRangeProblem, hasMealsWithin, openMealsCsv, parseDateRange } from './csv-download.js';
import { type PageDeps, requireSession } from './page-context.js';
import { CSV_RANGE_ERROR, CSV_RANGE_TEXT, type CsvFormView } from './pages/export-sections.js';
import type { Session } from './sessions.js';

/** The CSV form's days as a query gives them: a parameter given twice arrives as an array, not a day. */
export interface CsvQuery {
  readonly from?: unknown;
  readonly to?: unknown;
}

function daysOf(query: CsvQuery): { from: string; to: string } {
  const text = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : 'repeated');
  return { from: text(query.from), to: text(query.to) };
}

function noMealsText(from: string, to: string): string {
  if (from !== '' && to !== '') return `No meals eaten from ${from} to ${to}: there is nothing to download.`;
  if (from !== '') return `No meals eaten on or after ${from}: there is nothing to download.`;
  if (to !== '') return `No meals eaten up to ${to}: there is nothing to download.`;
  return 'You have no meals yet: there is nothing to download.';
}

/**
 * The CSV form of the page `/?from=…&to=…` (where a download that could not be made sends the
 * browser): the days kept as typed, and what stopped the download, said beside the form
 * (docs/app.md#the-csv-downloads-dates). Undefined without days in the query.
 */
export async function csvFormView(deps: PageDeps, session: Session, query: CsvQuery): Promise<CsvFormView | undefined> {
  if (query.from === undefined && query.to === undefined) return undefined;
  const { from, to } = daysOf(query);
  const problem = dateRangeProblem(from, to);
  if (problem === 'order') {
    return { from, to, problem: { text: CSV_RANGE_TEXT, fields: ['csv-from', 'csv-to'], messageId: CSV_RANGE_ERROR } };
  }
  if (problem !== undefined) {
    const fields = problem.notDays.map((field) => `csv-${field}`);
    return { from, to, problem: { text: 'Give each day as a date, YYYY-MM-DD, or leave it empty.', fields } };
  }
  const range = parseDateRange(from, to);
  if (range === undefined || (await hasMealsWithin(deps.storage, session.userId, range))) return { from, to };
  return { from, to, empty: noMealsText(from, to) };
}

/** The CSV download (a GET form: it changes nothing), or back to the page when it cannot be made. */
export function registerCsvRoutes(app: FastifyInstance, deps: PageDeps): void {
  app.get<{ Querystring: CsvQuery }>('/export.csv', async (request, reply) => {
    const session = await requireSession(deps, request, reply);
    if (session === undefined) return reply;
    const { from, to } = daysOf(request.query);
    const range = parseDateRange(from, to);
    const body =
      range === undefined
        ? undefined
        : await openMealsCsv(deps.storage, session.userId, range, (err) =>
            request.log.error({ err }, 'the CSV download failed'),
          );
    if (body === undefined) {
      // The page says why, beside the form, with the days as typed (csvFormView).
      const query = new URLSearchParams({ from, to });
      return reply.code(303).header('location', `/?${query.toString()}`).send();
    }
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${csvFileName(session.userId, from, to)}"`)
      .send(body);
  });
}
