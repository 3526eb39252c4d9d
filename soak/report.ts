import type { FollowerState } from './follower.js';
import { copyDifferences } from './follower-check.js';
import type { Instance, InstanceExit } from './instance.js';
import type { KillRecord } from './killer.js';
import { checkLedger, type LedgerCheck } from './ledger-check.js';
import type { SoakOptions } from './options.js';
import type { ProcessSample } from './process-sample.js';
import type { ReaderTally } from './readers.js';
import type { StatusCount, StatusCounts, UnexpectedSample } from './status-counts.js';
import type { StoreTruth } from './store-truth.js';
import { type EndpointFigures, endpointFigures, LAG_MARGIN_MS } from './webhook-check.js';
import type { EndpointLog } from './webhook-sink.js';

/** What the soak gathered, for `judge`. */
export interface SoakRun {
  readonly startedAt: Date;
  readonly options: SoakOptions;
  readonly storeLabel: string;
  readonly instances: ReadonlyArray<{
    readonly instance: Instance;
    readonly start: ProcessSample | undefined;
    readonly end: ProcessSample | undefined;
  }>;
  readonly kills: readonly KillRecord[];
  readonly writes: Readonly<Record<string, number>>;
  readonly truth: StoreTruth;
  readonly lastChanges: ReadonlyMap<string, number>;
  readonly followers: readonly FollowerState[];
  readonly readers: ReaderTally;
  readonly endpoints: readonly EndpointLog[];
  readonly strays: number;
  readonly drainS: number;
  readonly statuses: StatusCounts;
}

export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface SoakReport {
  readonly ok: boolean;
  readonly startedAt: string;
  readonly store: string;
  readonly options: SoakOptions;
  readonly checks: readonly Check[];
  readonly instances: ReadonlyArray<{
    readonly index: number;
    readonly start: ProcessSample | undefined;
    readonly end: ProcessSample | undefined;
    readonly exits: readonly InstanceExit[];
    readonly log: { readonly warn: number; readonly error: number; readonly errorLines: readonly string[] };
  }>;
  readonly kills: readonly KillRecord[];
  readonly writes: Readonly<Record<string, number>>;
  readonly ledger: LedgerCheck;
  readonly followers: ReadonlyArray<{
    readonly userId: string;
    readonly meals: number;
    readonly pages: number;
    readonly digestsMatched: number;
    readonly digestsDiffered: number;
    readonly resyncs: number;
    readonly restarts: number;
    readonly copyDifferences: readonly string[];
    readonly problems: readonly string[];
  }>;
  readonly readers: ReaderTally;
  readonly webhooks: {
    readonly drainS: number;
    readonly strays: number;
    readonly endpoints: readonly EndpointFigures[];
  };
  readonly statuses: readonly StatusCount[];
  readonly unexpected: readonly UnexpectedSample[];
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const check = (name: string, ok: boolean, detail: string): Check => ({ name, ok, detail });
const BAD_WRITE = /unknown outcome|HTTP|not sent/;

/** The figures, and each check of the soak passed or failed. */
export function judge(run: SoakRun): SoakReport {
  const ledger = checkLedger(run.truth);
  const followers = run.followers.map((f) => ({
    userId: f.userId,
    meals: f.copy.size,
    pages: f.counts.pages,
    digestsMatched: f.digests.matched,
    digestsDiffered: f.digests.differed,
    resyncs: f.counts.resyncs,
    restarts: f.counts.restarts,
    copyDifferences: copyDifferences(f, run.truth).slice(0, 10),
    problems: [...f.differences, ...(f.lastError.message === undefined ? [] : [`last error: ${f.lastError.message}`])],
  }));
  const endpoints = run.endpoints.map((e) => endpointFigures(e, run.lastChanges.get(e.userId), run.kills));
  const exits = run.instances.flatMap(({ instance }) => instance.exits);
  const badExits = exits.filter(
    (e) =>
      e.cause === 'crashed' ||
      (e.cause === 'stopped' && e.code !== 0) ||
      (e.cause === 'killed' && e.signal !== 'SIGKILL'),
  );
  const errorLines = sum(run.instances.map(({ instance }) => instance.log.error));
  const badWrites = Object.entries(run.writes).filter(([what]) => BAD_WRITE.test(what));
  const maxLag = Math.max(0, ...endpoints.map((e) => e.maxLagS));
  const maxLagUnrefused = Math.max(0, ...endpoints.map((e) => e.maxLagUnrefusedS));
  const maxLagAcrossKill = Math.max(0, ...endpoints.map((e) => e.maxLagAcrossKillS));
  const maxOverdue = Math.max(...endpoints.map((e) => e.maxOverdueS));
  const wantedKills =
    run.options.killEverySeconds !== undefined && run.options.killEverySeconds < run.options.minutes * 60;
  const checks = [
    check(
      'follower copies equal the store',
      followers.every((f) => f.copyDifferences.length === 0),
      followers
        .map(
          (f) =>
            `${f.userId}: ${f.meals} meals${f.copyDifferences.length > 0 ? ` (${f.copyDifferences.join(', ')})` : ''}`,
        )
        .join('; '),
    ),
    check(
      'every Meals-Digest matched the copy',
      followers.every((f) => f.digestsDiffered === 0) && followers.every((f) => f.digestsMatched > 0),
      `${sum(followers.map((f) => f.digestsMatched))} matched, ${sum(followers.map((f) => f.digestsDiffered))} differed`,
    ),
    check(
      'the store holds the newest acknowledged version, or a newer uncertain one',
      ledger.failures.length === 0,
      `${ledger.meals} meals: ${ledger.atAcknowledged} at the acknowledged version, ${ledger.atUncertain} at a newer uncertain one, ${ledger.neverWritten} never written; ${ledger.uncertainWrites} uncertain writes${ledger.failures.length > 0 ? `; ${ledger.failures.slice(0, 5).join('; ')}` : ''}`,
    ),
    check(
      'every write answered a documented outcome',
      badWrites.length === 0,
      badWrites.map(([w, n]) => `${w}: ${n}`).join(', ') || 'yes',
    ),
    check(
      'every webhook endpoint heard of the last change',
      endpoints.every((e) => e.heard),
      `${endpoints.filter((e) => e.heard).length} of ${endpoints.length}, after a drain of ${run.drainS} s`,
    ),
    check(
      'no event out of order, overlapping, unsigned or astray',
      sum(endpoints.map((e) => e.overlaps + e.outOfOrder + e.badSignature)) === 0 && run.strays === 0,
      `${sum(endpoints.map((e) => e.accepted))} events accepted, ${sum(endpoints.map((e) => e.refused))} refused (500), ${sum(endpoints.map((e) => e.repeats))} repeats counted; overlaps ${sum(endpoints.map((e) => e.overlaps))}, out of order ${sum(endpoints.map((e) => e.outOfOrder))}, bad signatures ${sum(endpoints.map((e) => e.badSignature))}, strays ${run.strays}`,
    ),
    check(
      'every event called within its retries (+ 10 s)',
      maxOverdue <= LAG_MARGIN_MS / 1000,
      `lag at most ${maxLagUnrefused} s never refused, ${maxLag} s with refusals, ${maxLagAcrossKill} s across a kill; ${maxOverdue} s past the schedule at most`,
    ),
    check(
      'no 5xx, no unexpected status',
      run.statuses.unexpected() === 0,
      run.statuses
        .list()
        .filter((c) => !c.expected)
        .map((c) => `${c.surface} ${c.outcome}: ${c.count}`)
        .join(', ') || 'none',
    ),
    check(
      'no client gave up',
      run.readers.gaveUp === 0 && followers.every((f) => f.restarts === 0),
      `readers ${run.readers.gaveUp}, followers ${sum(followers.map((f) => f.restarts))}${run.readers.lastError === undefined ? '' : `; ${run.readers.lastError}`}`,
    ),
    check("no error in the instances' logs", errorLines === 0, `${errorLines} lines at error or fatal`),
    check(
      'exit codes: 0 on SIGTERM, killed ones by SIGKILL, no crash',
      badExits.length === 0 && exits.some((e) => e.cause === 'stopped'),
      `${exits.filter((e) => e.cause === 'stopped').length} stopped, ${exits.filter((e) => e.cause === 'killed').length} killed${badExits.length > 0 ? `; ${JSON.stringify(badExits)}` : ''}`,
    ),
    check(
      'every kill was followed by a restart',
      (!wantedKills || run.kills.length > 0) && run.kills.every((k) => k.restartError === undefined),
      `${run.kills.length} kills${run.kills.length > 0 ? `, down ${Math.max(...run.kills.map((k) => k.downMs))} ms at most` : ''}`,
    ),
  ];
  return {
    ok: checks.every((c) => c.ok),
    startedAt: run.startedAt.toISOString(),
    store: run.storeLabel,
    options: run.options,
    checks,
    instances: run.instances.map(({ instance, start, end }) => ({
      index: instance.index,
      start,
      end,
      exits: instance.exits,
      log: {
        warn: instance.log.warn,
        error: instance.log.error,
        errorLines: [...instance.log.errorLines, ...instance.log.warnLines],
      },
    })),
    kills: run.kills,
    writes: run.writes,
    ledger,
    followers,
    readers: run.readers,
    webhooks: { drainS: run.drainS, strays: run.strays, endpoints },
    statuses: run.statuses.list(),
    unexpected: run.statuses.samples(),
  };
}
