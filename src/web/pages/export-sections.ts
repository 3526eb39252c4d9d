import { type Html, html } from '../html.js';
import { type FormProblem, fieldState, renderFieldError, renderFormRefusal } from './form-problem.js';

/** The CSV form as a download that could not be made left it (csv-routes.ts). */
export interface CsvFormView {
  readonly from: string;
  readonly to: string;
  readonly problem?: FormProblem;
  /** No meal in the range: said beside the form instead of a file of headers. */
  readonly empty?: string;
}

/** The message of a range the wrong way round: always in the page, shown by the server or by csv-range.js. */
export const CSV_RANGE_ERROR = 'csv-range-error';
export const CSV_RANGE_TEXT = 'The first day is after the last: choose a first day on or before the last one.';

/** The CSV download: a GET form (it changes nothing), dates of the meals, both optional. */
export function renderCsvSection(view: CsvFormView = { from: '', to: '' }): Html {
  const { problem } = view;
  const inverted = problem?.messageId === CSV_RANGE_ERROR;
  return html`<section aria-labelledby="csv-title">
    <h2 id="csv-title">Download your meals (CSV)</h2>
    <p>
      The same file as the app's export: one row per meal, with its nutrients. Leave the dates empty for all your meals.
    </p>
    ${view.empty === undefined ? '' : renderFormRefusal({ text: view.empty })}
    <form method="get" action="/export.csv" class="stacked">
      <label for="csv-from">Meals eaten from <span class="muted">(optional)</span></label>
      <input id="csv-from" name="from" type="date" value="${view.from}" ${fieldState('csv-from', problem)} />
      ${renderFieldError('csv-from', problem)}
      <label for="csv-to">to <span class="muted">(optional, included)</span></label>
      <input
        id="csv-to"
        name="to"
        type="date"
        value="${view.to}"
        aria-describedby="csv-days"
        ${fieldState('csv-to', problem)}
      />
      ${renderFieldError('csv-to', problem)}
      <p id="csv-days" class="muted">
        Days are yours: a meal counts on the day it was eaten where you were, when the app recorded where that was;
        otherwise on its day in UTC. The file's localDate and localTime columns show the day and time it counted on.
      </p>
      <p id="${CSV_RANGE_ERROR}" class="field-error" ${inverted ? '' : 'hidden'}>${CSV_RANGE_TEXT}</p>
      <button type="submit">Download CSV</button>
    </form>
  </section>`;
}

/** How to use a key: curl with the base URL filled in, then the sync client. */
export function renderQuickStart(apiUrl: string): Html {
  const base = apiUrl.replace(/\/+$/, '');
  const curl = `export MEAL_EXPORT_API_KEY=mxk_…   # your key, from above
curl -H "Authorization: Bearer $MEAL_EXPORT_API_KEY" \\
  "${base}/v1/meals?lastModifiedSince=2025-01-01&limit=1000"`;
  const pull = `npx meal-export pull --url ${base} --state meals.state.json --out meals.csv`;
  return html`<section aria-labelledby="quick-start-title">
    <h2 id="quick-start-title">Quick start</h2>
    <p>From a terminal or your server (never a browser), read your meals:</p>
    <pre tabindex="0" role="region" aria-label="A request that reads your meals"><code>${curl}</code></pre>
    <p>
      Keep a CSV copy up to date: run this again whenever you want the changes since last time (it reads the key from
      <code>MEAL_EXPORT_API_KEY</code>; add <code>--ca cert.pem</code> if the server's certificate is self-signed).
    </p>
    <pre tabindex="0" role="region" aria-label="Keeping a CSV copy with pull"><code>${pull}</code></pre>
    <p>
      Answers are JSON; keep <code>nextCursor</code> and send it back as <code>cursor</code> to get only what changed.
      The full description of the API: <code>${base}/v1/openapi.json</code>.
    </p>
  </section>`;
}
