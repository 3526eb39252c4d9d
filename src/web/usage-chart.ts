import { type Html, html } from './html.js';

export const CHART_DAYS = 30;
const WIDTH = 300;
const HEIGHT = 64;
const BAR_GAP = 2;

export interface DailyRequests {
  /** UTC day number (domain/key-records.ts KeyDayRequests). */
  readonly day: number;
  readonly requests: number;
}

const dayLabel = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

/**
 * A key's accepted requests per day over the last 30 days as a small inline SVG bar chart,
 * drawn on the server (no script, styled by app.css through classes: the CSP allows no
 * inline style). Each bar has a tooltip title; the whole has a text summary for screen readers.
 */
export function renderUsageChart(today: number, counts: readonly DailyRequests[]): Html {
  const byDay = new Map(counts.map((count) => [count.day, count.requests]));
  const days = Array.from({ length: CHART_DAYS }, (_, i) => today - CHART_DAYS + 1 + i);
  const values = days.map((day) => byDay.get(day) ?? 0);
  const total = values.reduce((sum, value) => sum + value, 0);
  const peak = Math.max(...values);
  const scale = peak === 0 ? 0 : (HEIGHT - 4) / peak;
  const barWidth = WIDTH / CHART_DAYS - BAR_GAP;
  const peakDay = days[values.indexOf(peak)] ?? today;
  const summary =
    total === 0
      ? 'No requests in the last 30 days.'
      : `${total} request${total === 1 ? '' : 's'} in the last 30 days; the busiest day was ${dayLabel(peakDay)} with ${peak}.`;
  const bars = days.map((day, i) => {
    const value = values[i] ?? 0;
    // A day without requests still shows a sliver, so the axis reads as 30 days.
    const height = Math.max(1, Math.round(value * scale));
    const x = (i * WIDTH) / CHART_DAYS + BAR_GAP / 2;
    return html`<rect
      class="${day === today ? 'chart-bar chart-today' : 'chart-bar'}"
      x="${x.toFixed(1)}"
      y="${HEIGHT - height}"
      width="${barWidth.toFixed(1)}"
      height="${height}"
      ><title>${dayLabel(day)}: ${value}</title></rect
    >`;
  });
  return html`<figure class="chart">
    <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${summary}">
      ${bars}
      <line class="chart-axis" x1="0" y1="${HEIGHT - 0.5}" x2="${WIDTH}" y2="${HEIGHT - 0.5}"></line>
    </svg>
    <figcaption>${summary}</figcaption>
  </figure>`;
}
