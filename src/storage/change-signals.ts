/**
 * Change signals, "user U's feed moved" whoever committed it, wake long polls (http/held-requests.ts)
 * and the webhook dispatcher. Every backend keeps this promise, held by the shared storage suite:
 * - `moved` is called with U within 1 s of a change of U committing
 *   (docs/api.md#changes-as-they-happen-wait); a write that changed nothing signals nothing;
 * - a signal may be late, repeated, or name a user whose change is not in a given page: a woken reader
 *   reads again and decides. When signals may have been lost (PostgreSQL's listener dropped), `lost`
 *   is called once they flow again, so every reader reads again: latency lost, never a change.
 */
export interface ChangeSignals {
  /**
   * Tells the watcher which users' feeds moved. Not a store call: it opens at most one
   * listening connection or poller per handle, on the first watch.
   */
  watchFeeds(watcher: FeedWatcher): FeedWatch;
}

/** A watcher's interest in every user (the webhook dispatcher): told of any change it can be told of. */
export const EVERY_USER = 'every user';

export interface FeedWatcher {
  /**
   * The users whose moves matter now, or EVERY_USER. Backends that poll for other processes'
   * writes (SQLite) poll only while some watcher has an interest, and ask the store about
   * the users named only; a watcher of every user is told `lost` when the store changed in a
   * way they cannot tell by user.
   */
  users(): ReadonlySet<string> | ReadonlyMap<string, unknown> | typeof EVERY_USER;
  /** These users' feeds moved. */
  moved(userIds: readonly string[]): void;
  /** Signals may have been lost: every user's feed may have moved. */
  lost(): void;
}

export interface FeedWatch {
  /**
   * Resolves once signals flow (PostgreSQL: the process listens). A server announces itself
   * ready only after this, so that no change committed after its start goes unheard.
   */
  readonly ready: Promise<void>;
  /** Says that `users()` may have gained a user: a polling backend starts again if it had stopped. */
  interested(): void;
  /** Stops watching. */
  close(): void;
}

/**
 * The watchers of one store handle: each signal goes to every watcher (the long polls and the
 * webhook dispatcher). Used by each backend's signal source.
 */
export interface FeedWatchers {
  add(watcher: FeedWatcher, onInterest: () => void, ready: Promise<void>): FeedWatch;
  moved(userIds: readonly string[]): void;
  lost(): void;
  /** Whether any watcher has a user now, or watches every user. */
  anyInterest(): boolean;
  /** The store changed, by whom is not known: watchers of every user are told `lost`. */
  somethingChanged(): void;
}

export function createFeedWatchers(): FeedWatchers {
  const watchers = new Set<FeedWatcher>();
  return {
    add(watcher, onInterest, ready) {
      watchers.add(watcher);
      return {
        ready,
        interested: onInterest,
        close: () => {
          watchers.delete(watcher);
        },
      };
    },
    moved(userIds) {
      if (userIds.length > 0) for (const watcher of watchers) watcher.moved(userIds);
    },
    lost() {
      for (const watcher of watchers) watcher.lost();
    },
    anyInterest() {
      for (const watcher of watchers) {
        const users = watcher.users();
        if (users === EVERY_USER || users.size > 0) return true;
      }
      return false;
    },
    somethingChanged() {
      for (const watcher of watchers) if (watcher.users() === EVERY_USER) watcher.lost();
    },
  };
}
