import type { KillRecord } from './killer.js';
import type { EndpointLog } from './webhook-sink.js';

/** One endpoint's figures at the end. */
export interface EndpointFigures {
  readonly index: number;
  readonly userId: string;
  readonly calls: number;
  readonly accepted: number;
  readonly refused: number;
  readonly repeats: number;
  readonly overlaps: number;
  readonly outOfOrder: number;
  readonly badSignature: number;
  /** Whether its newest accepted event reached the user's last change. */
  readonly heard: boolean;
  /** The longest wait of a change for its call (s): of events never refused, of any, and across a kill. */
  readonly maxLagUnrefusedS: number;
  readonly maxLagS: number;
  readonly maxLagAcrossKillS: number;
  /** The most an event waited past what the retry schedule allows it (s); 0 or less is on time. */
  readonly maxOverdueS: number;
  /** The event that waited longest past its allowance: when its changes began, when it came. */
  readonly worst:
    { readonly from: string; readonly at: string; readonly refusals: number; readonly acrossKill: boolean } | undefined;
  readonly problems: readonly string[];
}

/**
 * What the retries allow an event (docs/webhooks.md#the-call), in ms. A refused event is tried
 * again at the 5 s step (± 10 %), then every 30 s (the receiver delivered within the hour), and
 * the changes made meanwhile wait behind it for the next call: so an event may wait for every
 * refusal of its endpoint from 30 s before its first change to its arrival. An event whose sender
 * was killed is sent again once its 30 s lease ends. A margin covers the call itself.
 */
export function allowedLagMs(refusals: number, acrossKill: boolean): number {
  const retries = refusals === 0 ? 0 : 5_500 + 30_000 * (refusals - 1);
  return LAG_MARGIN_MS + retries + (acrossKill ? LEASE_MS : 0);
}
export const LAG_MARGIN_MS = 10_000;
const LEASE_MS = 30_000;

const seconds = (ms: number) => Math.round(ms / 100) / 10;

export function endpointFigures(
  endpoint: EndpointLog,
  lastChange: number | undefined,
  kills: readonly KillRecord[],
): EndpointFigures {
  let maxLag = 0;
  let maxLagUnrefused = 0;
  let maxLagAcrossKill = 0;
  let maxOverdue = Number.NEGATIVE_INFINITY;
  let worst: EndpointFigures['worst'];
  for (const { fromMs, atMs } of endpoint.deliveries) {
    const lag = atMs - fromMs;
    const refusals = endpoint.refusedAtMs.filter((t) => t >= fromMs - 30_000 && t <= atMs).length;
    const acrossKill = kills.some((kill) => kill.killedAtMs <= atMs && kill.backAtMs + LEASE_MS >= fromMs);
    if (acrossKill) maxLagAcrossKill = Math.max(maxLagAcrossKill, lag);
    else maxLag = Math.max(maxLag, lag);
    if (refusals === 0 && !acrossKill) maxLagUnrefused = Math.max(maxLagUnrefused, lag);
    const overdue = lag - allowedLagMs(refusals, acrossKill) + LAG_MARGIN_MS;
    if (overdue > maxOverdue) {
      maxOverdue = overdue;
      worst = { from: new Date(fromMs).toISOString(), at: new Date(atMs).toISOString(), refusals, acrossKill };
    }
  }
  return {
    index: endpoint.index,
    userId: endpoint.userId,
    calls: endpoint.calls,
    accepted: endpoint.deliveries.length,
    refused: endpoint.refused,
    repeats: endpoint.repeats,
    overlaps: endpoint.overlaps,
    outOfOrder: endpoint.outOfOrder,
    badSignature: endpoint.badSignature,
    heard: lastChange === undefined || endpoint.through >= lastChange,
    maxLagUnrefusedS: seconds(maxLagUnrefused),
    maxLagS: seconds(maxLag),
    maxLagAcrossKillS: seconds(maxLagAcrossKill),
    maxOverdueS: seconds(Number.isFinite(maxOverdue) ? maxOverdue : 0),
    worst,
    problems: endpoint.problems,
  };
}

/** Whether every endpoint heard of its user's last change (docs/webhooks.md#the-call). */
export function allHeard(endpoints: readonly EndpointLog[], last: ReadonlyMap<string, number>): boolean {
  return endpoints.every((endpoint) => endpoint.through >= (last.get(endpoint.userId) ?? 0));
}
