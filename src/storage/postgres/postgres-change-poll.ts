import type { Sql } from 'postgres';
import { createFeedWatchers } from '../change-signals.js';
import type { PostgresFeedSignals } from './postgres-feed-signals.js';

const PREPARED = { prepare: true } as const;

/** How often the poll looks: a woken long poll reads its page within the 1 s promise. */
export const CHANGE_POLL_MS = 250;
/**
 * How often watchers of every user (the webhook sender) are woken whatever the poll found: a
 * change of the outbox alone (a test event, an endpoint enabled again) moves no clock.
 */
export const OUTBOX_WAKE_MS = 1_000;
/**
 * How long a hole in the sequence is waited for. Writers of different users commit in
 * parallel, so a value taken before a larger one may commit after it; a hole is also left by
 * a rolled-back write, or by a user's older value that a newer write of the same user replaced.
 * A commit step takes its value at its end (postgres-commit.ts), so one later than this is
 * rare, and then costs that waiter latency up to its `wait`, never the change.
 */
export const GAP_WAIT_MS = 2_000;
/** Changes read at one look at most; past that, every watcher reads again (`lost`). */
const MAX_CHANGES_PER_LOOK = 10_000;

/**
 * Change signals without LISTEN (docs/operations.md#behind-pgbouncer), for a process whose
 * notifications do not arrive (a transaction pooler between it and PostgreSQL): while anyone
 * watches, one indexed statement per look, whatever the number of waiters, reads the users
 * whose clock took a change sequence value (postgres-commit.ts) above the last one seen. The
 * position is kept while nobody waits: the first look once polling resumes names everyone
 * changed meanwhile.
 */
export function createPostgresChangePoll(sql: Sql): PostgresFeedSignals {
  const watchers = createFeedWatchers();
  // Every value up to `floor` was signalled, or waited for long enough; `seen`, those above it.
  let floor: number | undefined;
  const seen = new Set<number>();
  // The highest value seen at each look of the last GAP_WAIT_MS: the holes below it, once it
  // is that old, are given up.
  let marks: { at: number; highest: number }[] = [];
  let highest = 0;
  let lastOutboxWake = 0;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  let closed = false;
  let positioned: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    positioned = resolve;
  });

  async function newest(): Promise<number> {
    const [row] = await sql.unsafe<{ newest: number }[]>(
      'SELECT coalesce(max(change_seq), 0) AS newest FROM user_clocks',
      [],
      PREPARED,
    );
    return Number(row?.newest ?? 0);
  }

  async function position(): Promise<void> {
    if (floor !== undefined) return;
    floor = await newest();
    highest = floor;
    positioned();
  }

  function advance(now: number): void {
    if (floor === undefined) return;
    while (marks[0] !== undefined && marks[0].at <= now - GAP_WAIT_MS)
      floor = Math.max(floor, marks.shift()?.highest ?? 0);
    while (seen.has(floor + 1)) floor += 1;
    for (const value of seen) if (value <= floor) seen.delete(value);
  }

  async function look(): Promise<void> {
    await position();
    const rows = await sql.unsafe<{ user_id: string; change_seq: number }[]>(
      'SELECT user_id, change_seq FROM user_clocks WHERE change_seq > $1 ORDER BY change_seq LIMIT $2',
      [floor ?? 0, MAX_CHANGES_PER_LOOK + 1],
      PREPARED,
    );
    const now = Date.now();
    if (rows.length > MAX_CHANGES_PER_LOOK) {
      floor = await newest();
      highest = floor;
      seen.clear();
      marks = [];
      watchers.lost();
      return;
    }
    const moved: string[] = [];
    for (const row of rows) {
      const value = Number(row.change_seq);
      highest = Math.max(highest, value);
      if (seen.has(value)) continue;
      seen.add(value);
      moved.push(row.user_id);
    }
    marks.push({ at: now, highest });
    advance(now);
    watchers.moved(moved);
    if (now - lastOutboxWake >= OUTBOX_WAKE_MS) {
      lastOutboxWake = now;
      watchers.somethingChanged();
    }
  }

  function schedule(): void {
    if (closed || timer !== undefined || looking !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      // Nobody waits: no statement until someone does (the position, once taken, is kept).
      if (floor !== undefined && !watchers.anyInterest()) return;
      looking = look()
        // The store is failing or closing: the readers' own reads say so. Looked for again next time.
        .catch(() => undefined)
        .finally(() => {
          looking = undefined;
          schedule();
        });
    }, CHANGE_POLL_MS);
    timer.unref();
  }

  return {
    watch(watcher) {
      // From here on no commit goes unseen: the position is taken before `ready`.
      const watch = watchers.add(watcher, schedule, ready);
      if (floor === undefined && looking === undefined) {
        looking = position()
          .catch(() => undefined)
          .finally(() => {
            looking = undefined;
            schedule();
          });
      }
      return watch;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await looking;
    },
  };
}
