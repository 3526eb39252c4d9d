import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csvFileName, parseDateRange } from '../../src/web/csv-download.js';
import { csrfTokenFor, isSameOriginPost, isValidCsrfToken } from '../../src/web/csrf.js';
import { escapeHtml, html } from '../../src/web/html.js';
import { newSecretToken } from '../../src/web/secret-token.js';
import { readCookie } from '../../src/web/sessions.js';
import { chartPeak, renderUsageChart } from '../../src/web/usage-chart.js';
import { renderWebhooksSection } from '../../src/web/pages/webhooks-section.js';

const DAY = 20_000;

describe('the app page parts', () => {
  test('html escapes every interpolated value, arrays included, and keeps Html as it is', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;');
    const inner = html`<b>${'<i>'}</b>`;
    assert.equal(html`<p>${inner}${['<', 1, null, undefined]}</p>`.text, '<p><b>&lt;i&gt;</b>&lt;1</p>');
  });

  test('a CSRF token belongs to one session and is checked in full', () => {
    const [one, two] = [newSecretToken(), newSecretToken()];
    assert.ok(isValidCsrfToken(one, csrfTokenFor(one)));
    assert.ok(!isValidCsrfToken(two, csrfTokenFor(one)));
    assert.ok(!isValidCsrfToken(one, csrfTokenFor(one).slice(1)));
    assert.ok(!isValidCsrfToken(one, null));
  });

  test('a POST is same-origin by its Origin, else by Sec-Fetch-Site; Origin null is refused', () => {
    const origins = new Set(['https://app.example']);
    assert.ok(isSameOriginPost({ origin: 'https://app.example' }, origins));
    assert.ok(!isSameOriginPost({ origin: 'https://evil.example' }, origins));
    assert.ok(!isSameOriginPost({ origin: 'null', 'sec-fetch-site': 'same-origin' }, origins));
    assert.ok(isSameOriginPost({ 'sec-fetch-site': 'same-origin' }, origins));
    assert.ok(!isSameOriginPost({ 'sec-fetch-site': 'cross-site' }, origins));
    assert.ok(!isSameOriginPost({}, origins));
  });

  test('the cookie reader finds one cookie among several', () => {
    assert.equal(readCookie('a=1; __Host-s=xyz; b=2', '__Host-s'), 'xyz');
    assert.equal(readCookie('a=1', '__Host-s'), undefined);
    assert.equal(readCookie(undefined, 'a'), undefined);
  });

  test('the date range takes optional YYYY-MM-DD days, the last one included, and refuses the rest', () => {
    assert.deepEqual(parseDateRange('', undefined), { from: undefined, until: undefined });
    assert.deepEqual(parseDateRange('2025-03-01', '2025-03-01'), {
      from: Date.UTC(2025, 2, 1),
      until: Date.UTC(2025, 2, 2),
    });
    for (const [from, to] of [
      ['2025-03-02', '2025-03-01'],
      ['2025-02-30', ''],
      ['2025-03-01T00:00:00Z', ''],
      ['', 'yesterday'],
    ]) {
      assert.equal(parseDateRange(from, to), undefined, `${from} to ${to}`);
    }
    assert.equal(csvFileName('u/1 "x"', '2025-03-01', ''), 'meals-u_1__x_-2025-03-01-to-now.csv');
  });

  test('the usage chart draws the days used on the page’s scale, today marked, with a text summary', () => {
    const counts = [
      { day: DAY, requests: 4 },
      { day: DAY - 3, requests: 8 },
      { day: DAY - 30, requests: 99 },
    ];
    assert.equal(chartPeak(DAY, counts), 8, 'the day before the 30 is not on the scale');
    const chart = renderUsageChart(DAY, counts, 16, '“k”').text;
    const heights = [...chart.matchAll(/class="chart-bar[^"]*"[^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
    assert.deepEqual(heights, [27, 13.5], 'on a scale up to 16: 8 is half its height, 4 a quarter');
    assert.equal(chart.match(/chart-today/g)?.length, 1);
    assert.match(chart, /12 requests in the last 30 days; the busiest day was 2024-10-\d\d with 8\./);
    assert.match(chart, /peak 16/);
    assert.ok(!chart.includes('style='), 'no inline style: the CSP forbids it');
    assert.match(renderUsageChart(DAY, [], 0, 'k').text, /No requests in the last 30 days\./);
  });
  test('the webhooks section names an attempt’s outcome as the CLI does: HTTP 204, refused_address', () => {
    const endpoint = {
      id: 'wh_1',
      userId: 'u_1',
      url: 'https://hooks.example.com/a',
      name: '',
      status: 'enabled' as const,
      createdAt: 0,
      secret: 'whsec_x',
      previousSecret: null,
      previousSecretExpiresAt: null,
      lastAttemptAt: 2,
      lastStatus: null,
    };
    const attempt = { endpointId: 'wh_1', eventId: 'msg_1', at: 1, ms: 5 };
    const attempts = [
      { ...attempt, status: null, error: 'refused_address' },
      { ...attempt, status: 204, error: null },
    ];
    const { text } = renderWebhooksSection({ csrf: 'c', nextWebhookId: 'wh_2', rows: [{ endpoint, attempts }] });
    const shown = [...text.matchAll(/<span class="attempt-(?:ok|failed)">([^<]*)<\/span>/g)].map((m) => m[1]);
    assert.deepEqual(shown, ['refused_address', 'HTTP 204']);
    // The newest attempt refused by this server's flags: the changes wait, and the page says why.
    assert.match(
      text,
      /<p class="hint">Its address is refused by the flags of the server that tried: the changes wait for a process that may call it \(--webhook-allow-private\)\.<\/p>/,
    );
    const delivered = renderWebhooksSection({
      csrf: 'c',
      nextWebhookId: 'wh_2',
      rows: [{ endpoint, attempts: attempts.slice(1) }],
    });
    assert.doesNotMatch(delivered.text, /the changes wait/);
  });
});
