import type { Database } from 'better-sqlite3';
import { createFeedWatchers, type FeedWatch, type FeedWatcher } from '../feed-signals.js';

/**
 * How often, while anything waits, this process looks for commits of other processes. SQLite
 * has no notification across processes; `PRAGMA data_version` reads a counter in the WAL index
 * (shared memory, no disk read) that moves whenever another connection commits, so a look
 * costs microseconds. 100 ms keeps the contract's 1 s with room to spare.
 */
export const SQLITE_POLL_MS = 100;

export interface SqliteFeedSignals {
  watch(watcher: FeedWatcher): FeedWatch;
  /** A write of this connection committed a change of this user (data_version does not see those). */
  committed(userId: string): void;
  /** A write of this connection changed the webhook outbox alone: watchers of every user hear of it. */
  outboxChanged(): void;
  close(): void;
}

/**
 * Change signals on SQLite (storage/feed-signals.ts): this connection's own writes are
 * signalled as they commit; other processes' (a CLI import, the host module, another worker)
 * are found by polling data_version while any watcher has users. When it moved, one statement
 * reads the change clocks of every watched user, and the users whose clock moved since the
 * last look are signalled: one query for all of them, never one per waiter.
 *
 * Watchers of every user (the webhook dispatcher) are told `lost` whenever data_version moved.
 *
 * A user seen for the first time has no clock to compare with: the commit that moved
 * data_version may have come after that user's reader read its page, so such a user is
 * signalled (one read too many, never a change missed). For the same reason the first look
 * after polling (re)starts counts as a move: commits made while nobody polled are unknown.
 */
export function createSqliteFeedSignals(db: Database): SqliteFeedSignals {
  const watchers = createFeedWatchers();
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const clocksOf = db
    .prepare<[string], [string, number]>(
      'SELECT user_id, last_modified_at FROM user_clocks WHERE user_id IN (SELECT value FROM json_each(?))',
    )
    .raw();
  const clockOf = db.prepare<[string], number>('SELECT last_modified_at FROM user_clocks WHERE user_id = ?').pluck();
  // Each watched user's change clock at the last look.
  const known = new Map<string, number>();
  let lastVersion: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function stop(): void {
    clearInterval(timer);
    timer = undefined;
    lastVersion = undefined;
    known.clear();
  }

  function look(): void {
    if (!watchers.anyInterest()) {
      stop();
      return;
    }
    let moved: string[];
    try {
      const version = dataVersion.get();
      if (version === lastVersion) return;
      lastVersion = version;
      watchers.somethingChanged();
      const users = watchers.users();
      moved = [];
      const clocks = users.size === 0 ? new Map<string, number>() : new Map(clocksOf.all(JSON.stringify([...users])));
      for (const user of users) {
        const clock = clocks.get(user) ?? 0;
        const before = known.get(user);
        if (before === undefined || clock !== before) moved.push(user);
        known.set(user, clock);
      }
      for (const user of known.keys()) if (!users.has(user)) known.delete(user);
    } catch {
      // The store is closing or failing: the readers' own reads say so. Try again next time.
      lastVersion = undefined;
      return;
    }
    watchers.moved(moved);
  }

  function start(): void {
    if (timer !== undefined || closed) return;
    timer = setInterval(look, SQLITE_POLL_MS);
    timer.unref();
  }

  return {
    watch: (watcher) => watchers.add(watcher, start, Promise.resolve()),
    committed(userId) {
      // This write is signalled now: the next look must not take it for another process's.
      if (known.has(userId)) known.set(userId, clockOf.get(userId) ?? 0);
      watchers.moved([userId]);
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
