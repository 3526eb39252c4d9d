import { type Html, html } from './html.js';

export const CHART_DAYS = 30;
const WIDTH = 300;
/** The plot runs from TOP (the scale's peak) down to BASE (zero); marks of used days sit below. */
const TOP = 2;
const BASE = 56;
const HEIGHT = 62;
const BAR_GAP = 2;

export interface DailyRequests {
  /** UTC day number (domain/key-records.ts KeyDayRequests). */
  readonly day: number;
  readonly requests: number;
}

const dayLabel = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
const plural = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

/** The 30 days a chart ends with `today`, oldest first. */
function chartDays(today: number): number[] {
  return Array.from({ length: CHART_DAYS }, (_, i) => today - CHART_DAYS + 1 + i);
}

/** The busiest day of all these counts within the chart's days: the one scale every chart of the page shares. */
export function chartPeak(today: number, counts: readonly DailyRequests[]): number {
  const first = today - CHART_DAYS + 1;
  return counts.reduce(
    (peak, count) => (count.day >= first && count.day <= today ? Math.max(peak, count.requests) : peak),
    0,
  );
}

/** What the charts' marks mean, said once under them (docs/app.md#your-keys). */
export function renderChartLegend(peak: number): Html {
  return html`<p class="chart-legend">
    <span class="legend-swatch legend-day" aria-hidden="true"></span> accepted requests of a day;
    <span class="legend-swatch legend-today" aria-hidden="true"></span> today, so far (the day ends at 00:00 UTC). Every
    chart has the same scale: its dashed top line is ${plural(peak)}, the busiest day of any key.
  </p>`;
}

/**
 * A key's accepted requests per day over the last 30 days: an SVG bar chart on the page's one
 * scale (`peak`: a day of 1 request is 1/189 the height of a day of 189, in every key's chart),
 * drawn on the server (no script; classes only, the CSP allows no inline style). The picture is
 * hidden from screen readers: its caption says the total and the busiest day, and the daily
 * numbers are a table in a closed `<details>`, which a keyboard opens. `label` names the key.
 */
export function renderUsageChart(today: number, counts: readonly DailyRequests[], peak: number, label: string): Html {
  const byDay = new Map(counts.map((count) => [count.day, count.requests]));
  const days = chartDays(today).map((day) => ({ day, requests: byDay.get(day) ?? 0 }));
  const used = days.filter((day) => day.requests > 0);
  if (used.length === 0 || peak <= 0) return html`<p class="chart-none">No requests in the last 30 days.</p>`;
  const total = used.reduce((sum, day) => sum + day.requests, 0);
  const busiest = used.reduce((best, day) => (day.requests > best.requests ? day : best));
  const summary = `${plural(total)} in the last 30 days; the busiest day was ${dayLabel(busiest.day)} with ${busiest.requests}.`;
  const scale = (BASE - TOP) / peak;
  const barWidth = WIDTH / CHART_DAYS - BAR_GAP;
  const marks = days.map(({ day, requests }, i) => {
    if (requests === 0) return '';
    const x = ((i * WIDTH) / CHART_DAYS + BAR_GAP / 2).toFixed(1);
    const height = requests * scale;
    // Exact heights keep the ratio true; a day too small to see still gets its mark under the axis.
    return html`<rect
        class="${day === today ? 'chart-bar chart-today' : 'chart-bar'}"
        x="${x}"
        y="${(BASE - height).toFixed(3)}"
        width="${barWidth.toFixed(1)}"
        height="${height.toFixed(3)}"
        ><title>${dayLabel(day)}: ${requests}</title></rect
      ><rect class="chart-used" x="${x}" y="${BASE + 2}" width="${barWidth.toFixed(1)}" height="3"></rect>`;
  });
  return html`<figure class="chart">
    <span class="chart-peak" aria-hidden="true">peak ${peak}</span>
    <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" aria-hidden="true" focusable="false">
      <line class="chart-top" x1="0" y1="${TOP}" x2="${WIDTH}" y2="${TOP}"></line>
      ${marks}
      <line class="chart-axis" x1="0" y1="${BASE + 0.5}" x2="${WIDTH}" y2="${BASE + 0.5}"></line>
    </svg>
    <figcaption>${summary}</figcaption>
    <details class="chart-numbers">
      <summary>Daily numbers<span class="visually-hidden"> of ${label}</span></summary>
      <table>
        <caption class="visually-hidden">
          Accepted requests of ${label} per day
        </caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Requests</th>
          </tr>
        </thead>
        <tbody>
          ${used.map(
            ({ day, requests }) =>
              html`<tr>
                <th scope="row">${dayLabel(day)}${day === today ? ' (today, so far)' : ''}</th>
                <td>${requests}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      <p class="hint">Other days: none.</p>
    </details>
  </figure>`;
}
