import { cell, commitLatencyTable, fieldColumn, keptBlockHead, mark, type KeptBlock } from './report-section.js';
import type { ScenarioRow } from './results.js';

/**
 * The report's long-poll section, between markers of its own: a run that
 * measured any long-poll row rewrites it, a run that measured none leaves it as it was (and
 * the same for the main block), so `--only long-poll-latency,held-idle` adds these figures
 * without erasing the others.
 */
export const LONG_POLL_BEGIN = '<!-- long-poll:begin (written by npm run bench) -->';
export const LONG_POLL_END = '<!-- long-poll:end -->';

function latencyTable(rows: readonly ScenarioRow[]): string[] {
  return commitLatencyTable({
    heading: 'Commit to answer',
    rows: rows.filter((row) => row.name.startsWith('long-poll-')),
    about: [fieldColumn('woken by', 'woken_by')],
    beforeGoal: [
      { heading: 'plain request p50 / p99 ms', cell: (row) => `${cell(row.plain_p50_ms)} / ${cell(row.plain_p99_ms)}` },
      { heading: 'p50 / p99 over plain', cell: (row) => `${cell(row.p50_vs_plain)} / ${cell(row.p99_vs_plain)}` },
    ],
    // One column short of the table, as this section has always written a skipped case.
    skippedColumns: 10,
    note:
      'Each sample is a fresh user with its own key: a GET with `wait=60` is sent, held 100–200 ms (random, so that ' +
      'the writes fall anywhere in SQLite’s 100 ms look for other processes’ commits), then one meal of that user is ' +
      'written by a writer process that stays up (`meal-export/host`, on command over IPC: no process start-up in the ' +
      'figure). **Commit to answer**: from the moment the write returned in the writer to the moment the whole answer ' +
      'arrived at the client (the benchmark process). Both clocks are `performance.timeOrigin + performance.now()` ' +
      'of processes on this machine (the system clock read at each start with µs precision, then monotonic): ' +
      '`Date.now()` would add up to 1 ms of rounding on each side. What remains between the two clocks is measured ' +
      'by IPC round trips (clock offset, within ± half the fastest round trip) and taken off. On PostgreSQL the ' +
      'write returns after the commit’s answer reached the writer, when the NOTIFY is already on its way: the figure ' +
      'leaves out that round trip. **Plain request**: right after, the same key asks the same page without `wait` ' +
      'on a kept-alive connection to the same server: the same answer, with nothing to wait for.',
  });
}

function heldTable(rows: readonly ScenarioRow[]): string[] {
  const held = rows.find((row) => row.name.startsWith('held-') && row.name.endsWith('-idle'));
  const poll = rows.find((row) => row.name.startsWith('poll-'));
  if (held === undefined) return [];
  const count = typeof held.held === 'number' ? held.held.toLocaleString('en-US').replaceAll(',', ' ') : '';
  const lines = [
    `| RSS per held request (TLS connection included) | ${cell(held.rss_per_held_kib)} KiB (${cell(held.rss_before_mb)} → ${cell(held.rss_after_mb)} MB; anonymous ${cell(held.anon_per_held_kib)} KiB) | ${cell(held.ceiling_rss_per_held_kib)} KiB (${cell(held.ceiling_rss_before_mb)} → ${cell(held.ceiling_rss_after_mb)} MB); ours ${cell(held.rss_vs_ceiling)} × | ≤ ${cell(held.goal_rss_per_held_kib)} KiB | ${mark(held.rss_goal_met)} |`,
    `| CPU while they wait | ${cell(held.idle_cpu_pct)} % of a core (${cell(held.idle_seconds)} s) | ${cell(held.ceiling_idle_cpu_pct)} % | < ${cell(held.goal_idle_cpu_pct)} % | ${mark(held.idle_cpu_goal_met)} |`,
    `| CPU while another process commits ${cell(held.foreign_writes_per_s)} changes/s of a user nobody waits for | ${cell(held.foreign_writes_cpu_pct)} % of a core: ≈ ${cell(held.foreign_look_cpu_ms)} ms per 100 ms look | | | |`,
  ];
  if (poll !== undefined) {
    lines.push(
      `| the same ${count} keys polling every ${cell(poll.poll_every_s)} s instead (empty pages, one key per request, kept-alive connections) | ${cell(poll.target_rps)} req/s × ${cell(poll.cpu_us_per_req)} µs = ${cell(poll.cpu_pct_at_target)} % of a core (${cell(poll.vs_held_idle_cpu)} × the held requests’ idle CPU); measured at ${cell(poll.rps)} req/s, p50 ${cell(poll.p50_ms)} ms, p99 ${cell(poll.p99_ms)} ms | | | |`,
    );
  }
  return [
    `### ${count} idle held requests on one process`,
    '',
    '| figure | `serve` (SQLite) | baseline: bare node:https holding the same requests | goal | |',
    '|---|---|---|---|---|',
    ...lines,
    '',
    `${count} users, each with one key and one meal, made through \`meal-export/host\`; \`serve --max-waiting ${cell(held.held)}\` ` +
      `(the listener’s cap: 1000 + ${count}); ${count} TLS connections opened by two client processes of their own (raw \`tls.connect\`, no agent, ` +
      `at most 50 handshakes in flight each; ${cell(held.open_seconds)} s for all, ${cell(held.ceiling_open_seconds)} s against the baseline), ` +
      `each sending one \`GET /v1/meals?lastModifiedSince=2100-01-01T00:00:00.000Z&wait=120\` of its own key (after every ` +
      `meal: an empty page, so held). Opening cost the server ${cell(held.open_cpu_ms_per_held)} ms of CPU per connection ` +
      `(handshake, request, hold), the baseline ${cell(held.ceiling_open_cpu_ms_per_held)} ms. RSS (\`VmRSS\`) of the server process 1 s before the first connection and ` +
      `after the idle window (${cell(held.vm_hwm_mb)} MB peak during the handshakes), divided by the held requests; every request ` +
      `was still held, none answered or closed, when the figures were read. **Baseline**: bare \`node:https\` with the listener’s ` +
      `TLS and request settings, which keeps every request unanswered (\`bench/harness/hold-ceiling-server.ts\`): what Node and ` +
      `OpenSSL take for a TLS connection with a request in flight, before anything of the service’s own. CPU: utime + stime ` +
      `from \`/proc\` over the window. The foreign writes: a writer process commits one meal of a user with no held request ` +
      `at a time, ${cell(held.foreign_writes_per_s)} a second; each moves SQLite’s \`data_version\`, so the next 100 ms look reads the users changed since the last one (by the change sequence of their clocks). ` +
      `Polling: autocannon at the rate ${count} keys make at one request every 3 s, each request with the next key (so the ` +
      `key cache never answers, as with real clients), 10 connections kept alive; CPU per request × that rate.`,
    '',
  ];
}

/**
 * What following with `wait` saves: requests per delivered change and delivery delay of an SDK
 * follower with wait=120 against a poller every 3 s, in the same run (bench/scenarios/long-poll.ts).
 */
function followTable(rows: readonly ScenarioRow[]): string[] {
  const pair = rows.filter((row) => row.name.startsWith('follow-') && row.skipped === undefined);
  if (pair.length === 0) return [];
  const follow = pair.find((row) => row.name === 'follow-wait-120');
  return [
    '### What following with `wait` saves',
    '',
    '| consumer | requests | changes delivered | requests per change | delivery p50 ms | delivery max ms | 429s | load avg |',
    `|${'---|'.repeat(8)}`,
    ...pair.map(
      (row) =>
        `| ${[row.name, cell(row.requests), `${cell(row.delivered)} / ${cell(row.changes)}`, cell(row.requests_per_change), cell(row.delivery_p50_ms), cell(row.delivery_max_ms), cell(row.rate_limited), cell(row.load_avg)].join(' | ')} |`,
    ),
    '',
    `One change every ${cell(follow?.change_every_s)} s (a \`meals import\` in another process) for ${cell(follow?.seconds)} s; ` +
      'both consumers use the SDK against a server with the contract’s 3 s interval, each on a key of its own. ' +
      `Requests per change, follower over poller: **${cell(follow?.requests_vs_poller)}** (the poller spends ${cell(follow?.poller_vs_follow)} ×). ` +
      'Delivery: from the change’s `modifiedAt` to the page that carried it. The poller pays 1 request per 3 s whatever ' +
      'happens (changes N s apart: N / 3 per change); the follower about 1 per change plus 1 per 120 s without one.',
    '',
  ];
}

/** The long-poll block, or undefined when the run measured none of its rows. */
export const longPollBlock: KeptBlock = (rows, machine, command, loads) => {
  if (rows.length === 0) return undefined;
  return [
    ...keptBlockHead(LONG_POLL_BEGIN, 'Long poll', machine, command, loads),
    ...latencyTable(rows),
    ...heldTable(rows),
    ...followTable(rows),
    LONG_POLL_END,
  ].join('\n');
};
