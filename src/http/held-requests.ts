import type { ChangeSignals, FeedWatcher } from '../storage/change-signals.js';
import { DeadlineQueue } from './deadline-queue.js';

/**
 * How often the keys of the held requests are asked again, in a few store queries: a held
 * request of a key revoked, expired, or erased with its person is refused within about two
 * seconds (a new request of it within one: docs/api.md#keys). With it 10 000 idle held requests
 * on SQLite cost 0.8-1.6 % of a core in all, in three runs (0.4 % without it, 1.8 % with a check
 * every second: bench/RESULTS.md, "Long poll").
 */
export const HELD_KEY_CHECK_MS = 2_000;
/**
 * Key ids per query of that check, with a turn of the event loop between two: on SQLite a query
 * runs on it, and one query for 50 000 held requests would hold every other answer for tens of
 * milliseconds.
 */
export const HELD_KEY_CHECK_SLICE = 1_000;

/**
 * A long poll waiting for a change of its user (docs/api.md#changes-as-they-happen-wait): the small
 * record that is all a held request costs beside its connection. The endpoint extends it
 * with what it needs to answer (http/meals-endpoint.ts).
 */
export interface HeldRequest {
  readonly keyId: string;
  readonly userId: string;
  /** Epoch ms at which it is answered with the empty page. */
  readonly deadline: number;
  /** Answered, or its client left: it holds nothing more. */
  done: boolean;
  /** A read of its page is under way. */
  reading: boolean;
  /**
   * What came during that read: 1, a wake, read again; 2, answer with the page as it stands;
   * 3, its key refused, answer with the refusal.
   */
  again: 0 | 1 | 2 | 3;
}

export interface HeldRequestsOptions<T extends HeldRequest> {
  /** `--max-waiting`: held requests of this process at most; past that, answered at once. */
  readonly capacity: number;
  readonly signals: ChangeSignals;
  /**
   * Reads the request's page again and answers it when it has items, or whatever it holds
   * when `final`: true when answered (errors included), false to keep waiting. Never rejects.
   */
  readonly readAgain: (held: T, final: boolean) => Promise<boolean>;
  /**
   * Of these key ids, those of the held requests, the ones still accepted; undefined when the
   * store did not answer (no request is refused for that). Asked every HELD_KEY_CHECK_MS while
   * any request is held. Never rejects.
   */
  readonly acceptedKeys: (keyIds: readonly string[]) => Promise<ReadonlySet<string> | undefined>;
  /** Answers a held request whose key is refused, as a new request of that key is answered. Never rejects. */
  readonly refuse: (held: T) => Promise<void>;
  /** HELD_KEY_CHECK_MS, unless a test says otherwise. */
  readonly keyCheckMs?: number;
}

export interface HeldRequests<T extends HeldRequest> {
  /** Resolves once change signals flow (storage/change-signals.ts): await it before listening. */
  readonly ready: Promise<void>;
  /** How many are held now. */
  readonly size: number;
  /**
   * Changes with every change signal. Read before the page is read and given to `hold`: a
   * signal that came while the page was being read makes the held request read again at once.
   */
  epoch(): number;
  /** Holds the request; false when this process holds `capacity` or is shutting down (answer it at once). */
  hold(held: T, epochBeforeRead: number): boolean;
  /** A new request of this key was accepted: a request it holds is answered at once. */
  supersede(keyId: string): void;
  /** Its client left: forget it. */
  drop(held: T): void;
  /** Shutdown: every held request is answered at once with its page as it stands; no new one is held. */
  releaseAll(): Promise<void>;
}

/**
 * The held requests of one process, by key (one each, docs/api.md#changes-as-they-happen-wait) and
 * by user (a change signal wakes that user's), behind one deadline timer (http/deadline-queue.ts).
 * A woken request reads its page again and answers if it has items; otherwise it goes back to
 * waiting until its deadline. A wake that comes during a read is kept for after it, so a change is
 * never lost between a read and the next wait. The held requests' keys are asked again every
 * two seconds, a thousand to a query: a request whose key was revoked, expired or erased meanwhile is
 * answered with the refusal a new request of it gets, not held until its deadline.
 */
export function createHeldRequests<T extends HeldRequest>(options: HeldRequestsOptions<T>): HeldRequests<T> {
  const byKey = new Map<string, T>();
  const byUser = new Map<string, Set<T>>();
  let live = 0;
  let epoch = 0;
  let closing = false;
  let allAnswered: (() => void) | undefined;
  const deadlines = new DeadlineQueue<T>((held) => wake(held, true));
  /** The check of the held requests' keys: one timer while any is held, one check at a time. */
  let keyCheck: ReturnType<typeof setInterval> | undefined;
  let checking = false;

  function startKeyCheck(): void {
    if (checking) return;
    checking = true;
    void checkKeys().finally(() => (checking = false));
  }

  /**
   * Asks whether the held keys are still accepted, a slice at a time, and refuses the requests
   * of those that are not. A key refused never comes back, so a request of it held meanwhile (a
   * newer one of the key) is refused too. The authenticator's cache may still take the key for
   * up to half a second: a request of it made at once after the refusal may be held, and refused
   * at the next check.
   */
  async function checkKeys(): Promise<void> {
    const asked = [...byKey.keys()];
    for (let start = 0; start < asked.length; start += HELD_KEY_CHECK_SLICE) {
      if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const slice = asked.slice(start, start + HELD_KEY_CHECK_SLICE);
      const accepted = await options.acceptedKeys(slice);
      if (accepted === undefined) return;
      for (const keyId of slice) {
        const held = accepted.has(keyId) ? undefined : byKey.get(keyId);
        if (held !== undefined) refuse(held);
      }
    }
  }

  function finish(held: T): void {
    if (held.done) return;
    held.done = true;
    live -= 1;
    if (byKey.get(held.keyId) === held) byKey.delete(held.keyId);
    const ofUser = byUser.get(held.userId);
    ofUser?.delete(held);
    if (ofUser?.size === 0) byUser.delete(held.userId);
    deadlines.compact(live);
    if (live === 0) {
      clearInterval(keyCheck);
      keyCheck = undefined;
      allAnswered?.();
    }
  }

  function wake(held: T, final: boolean): void {
    if (held.done) return;
    if (held.reading) {
      if (held.again === 3) return;
      if (final) held.again = 2;
      else if (held.again === 0) held.again = 1;
      return;
    }
    held.reading = true;
    options.readAgain(held, final).then(
      (answered) => afterRead(held, answered),
      () => afterRead(held, true),
    );
  }

  function afterRead(held: T, answered: boolean): void {
    held.reading = false;
    if (answered) {
      finish(held);
      return;
    }
    const again = held.again;
    held.again = 0;
    if (again === 3) refuse(held);
    else if (again !== 0) wake(held, again === 2);
  }

  /** Its key is refused: answered with the refusal, after the read under way if there is one. */
  function refuse(held: T): void {
    if (held.done) return;
    if (held.reading) {
      held.again = 3;
      return;
    }
    held.reading = true;
    options.refuse(held).then(
      () => afterRead(held, true),
      () => afterRead(held, true),
    );
  }

  const watcher: FeedWatcher = {
    users: () => byUser,
    moved(userIds) {
      epoch += 1;
      for (const userId of userIds) {
        const ofUser = byUser.get(userId);
        if (ofUser !== undefined) for (const held of ofUser) wake(held, false);
      }
    },
    lost() {
      epoch += 1;
      for (const held of byKey.values()) wake(held, false);
    },
  };
  const watch = options.signals.watchFeeds(watcher);

  return {
    ready: watch.ready,
    get size() {
      return live;
    },
    epoch: () => epoch,
    hold(held, epochBeforeRead) {
      if (closing || live >= options.capacity) return false;
      const previous = byKey.get(held.keyId);
      if (previous !== undefined) wake(previous, true);
      byKey.set(held.keyId, held);
      let ofUser = byUser.get(held.userId);
      if (ofUser === undefined) {
        ofUser = new Set();
        byUser.set(held.userId, ofUser);
      }
      ofUser.add(held);
      live += 1;
      deadlines.add(held);
      if (keyCheck === undefined) {
        keyCheck = setInterval(startKeyCheck, options.keyCheckMs ?? HELD_KEY_CHECK_MS);
        keyCheck.unref();
      }
      watch.interested();
      if (epoch !== epochBeforeRead) wake(held, false);
      return true;
    },
    supersede(keyId) {
      const held = byKey.get(keyId);
      if (held !== undefined) wake(held, true);
    },
    drop: finish,
    releaseAll() {
      closing = true;
      const answered = new Promise<void>((resolve) => {
        allAnswered = resolve;
      });
      for (const held of [...byKey.values()]) wake(held, true);
      if (live === 0) allAnswered?.();
      return answered.then(() => {
        deadlines.clear();
        watch.close();
      });
    },
  };
}
