import type { Database } from 'better-sqlite3';
import { createFeedWatchers, type FeedWatch, type FeedWatcher } from '../change-signals.js';

/**
 * How often, while anything waits, this process looks for commits of other processes. SQLite
 * has no notification across processes; `PRAGMA data_version` reads a counter in the WAL index
 * (shared memory, no disk read) that moves whenever another connection commits, so a look
 * costs microseconds. 100 ms keeps the contract's 1 s with room to spare.
 */
export const SQLITE_POLL_MS = 100;

export interface SqliteFeedSignals {
  watch(watcher: FeedWatcher): FeedWatch;
  /** Writes of this connection committed changes of these users (data_version does not see those). */
  committed(userIds: readonly string[]): void;
  /** A write of this connection changed the webhook outbox alone: watchers of every user hear of it. */
  outboxChanged(): void;
  close(): void;
}

/** Changes read at one look at most; past that, every watcher reads again (`lost`). */
const MAX_CHANGES_PER_LOOK = 10_000;

/**
 * Change signals on SQLite (storage/change-signals.ts): this connection's writes are signalled as they
 * commit, other processes' found by polling data_version while anyone watches; then one indexed
 * statement reads the users whose change sequence (sqlite-commit.ts) moved since the last look, so a
 * look costs what changed, not what waits (docs/capacity.md#held-connections-long-poll). The position
 * is kept while nobody waits: the first look once polling resumes names everyone changed meanwhile, so
 * a reader that read its page before polling started misses no later commit. Watchers of every user
 * (the webhook dispatcher) are told `lost` whenever data_version moved.
 */
export function createSqliteFeedSignals(db: Database): SqliteFeedSignals {
  const watchers = createFeedWatchers();
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const lastChange = db.prepare<[], number>('SELECT coalesce(max(change_seq), 0) FROM user_clocks').pluck();
  const changedSince = db
    .prepare<[number, number], [string, number]>(
      'SELECT user_id, change_seq FROM user_clocks WHERE change_seq > ? ORDER BY change_seq LIMIT ?',
    )
    .raw();
  let seenThrough: number | undefined;
  let lastVersion: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function stop(): void {
    clearInterval(timer);
    timer = undefined;
    lastVersion = undefined;
  }

  function look(): void {
    if (!watchers.anyInterest()) {
      stop();
      return;
    }
    let moved: string[];
    let overflow: boolean;
    try {
      const version = dataVersion.get();
      if (version === lastVersion) return;
      lastVersion = version;
      watchers.somethingChanged();
      seenThrough ??= lastChange.get() ?? 0;
      const rows = changedSince.all(seenThrough, MAX_CHANGES_PER_LOOK + 1);
      overflow = rows.length > MAX_CHANGES_PER_LOOK;
      seenThrough = overflow ? (lastChange.get() ?? 0) : (rows.at(-1)?.[1] ?? seenThrough);
      moved = rows.map(([user]) => user);
    } catch {
      // The store is closing or failing: the readers' own reads say so. Try again next time.
      lastVersion = undefined;
      return;
    }
    if (overflow) watchers.lost();
    else watchers.moved(moved);
  }

  function start(): void {
    if (timer !== undefined || closed) return;
    timer = setInterval(look, SQLITE_POLL_MS);
    timer.unref();
  }

  return {
    watch(watcher) {
      // From here on, no commit goes unseen: the sequence's position is taken now.
      seenThrough ??= lastChange.get() ?? 0;
      return watchers.add(watcher, start, Promise.resolve());
    },
    committed(userIds) {
      watchers.moved(userIds);
    },
    outboxChanged() {
      watchers.somethingChanged();
    },
    close() {
      closed = true;
      stop();
    },
  };
}
