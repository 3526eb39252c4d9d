import type { ScenarioRow } from './results.js';

const cell = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/**
 * The report's long-poll part (issue 15, item 7): requests per delivered change and delivery
 * delay of a follower with wait=120 against a poller every 3 s, in the same run.
 */
export function longPollSection(rows: readonly ScenarioRow[]): string[] {
  const pair = rows.filter((row) => row.name.startsWith('long-poll-') && row.skipped === undefined);
  if (pair.length === 0) return [];
  const follow = pair.find((row) => row.name === 'long-poll-follow');
  return [
    '### Long poll: what following with `wait` saves (issue 15, item 7)',
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
