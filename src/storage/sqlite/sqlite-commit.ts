import type { Database } from 'better-sqlite3';
import type { DigestChange } from '../../domain/meals-digest.js';
import { newWebhookEventId } from '../../domain/webhook-ids.js';
import { digestSumBytes, storedDigest } from '../digest-bytes.js';
import type { SqliteFeedSignals } from './sqlite-feed-signals.js';
import { createSqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

/**
 * The one step that ends every change of a user's meals on SQLite
 * (docs/architecture.md#one-way-a-change-flows): inside the change's transaction it moves the
 * user's clock and the digest of the user's live meals, and queues the user's webhook events; once the transaction has committed, the
 * call policy (sqlite-call-policy.ts) signals the user's watchers. A write that changed
 * nothing never comes here, so it moves no clock, queues no event and wakes no one.
 */
export interface SqliteCommit {
  /**
   * `first` and `last`: the modifiedAt of the transaction's first and last change; `digest`:
   * what the transaction's changes did to the user's live meals.
   */
  commitChange(userId: string, first: number, last: number, now: number, digest: DigestChange): void;
  /** A write changed the webhook outbox alone (an endpoint enabled, a test event): the sender hears of it. */
  outboxChanged(): void;
  /** The call's transaction committed: its signals go out. */
  committed(): void;
  /** The call failed: its transaction rolled back, and nothing is signalled. */
  rolledBack(): void;
}

export function createSqliteCommit(db: Database, signals: SqliteFeedSignals): SqliteCommit {
  // The one maker of event ids, callable from the outbox's SQL.
  db.function('new_webhook_event_id', { deterministic: false }, newWebhookEventId);
  // The clock moves with the next store-wide change sequence: how other processes' long polls
  // learn which users changed (sqlite-feed-signals.ts).
  // A digest not computed yet (null) stays null: the backfill computes it from the meals.
  // An erased user's row took its sequence with it: the floor keeps it from being given again.
  const saveClock = db.prepare(
    `INSERT INTO user_clocks (user_id, last_modified_at, change_seq, live_count, digest_sum)
     VALUES (?, ?, max((SELECT coalesce(max(change_seq), 0) FROM user_clocks),
                       coalesce((SELECT change_seq FROM clock_floor), 0)) + 1, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET last_modified_at = excluded.last_modified_at,
       change_seq = excluded.change_seq, live_count = excluded.live_count, digest_sum = excluded.digest_sum`,
  );
  const selectDigest = db.prepare<[string], { live_count: number | null; digest_sum: Buffer | null }>(
    'SELECT live_count, digest_sum FROM user_clocks WHERE user_id = ?',
  );
  const queueChangeEvents = createSqliteWebhookOutbox(db);
  const changedUsers = new Set<string>();
  let outboxOnly = false;

  return {
    commitChange(userId, first, last, now, digest) {
      const row = selectDigest.get(userId);
      const stored = storedDigest(row !== undefined, row?.live_count, row?.digest_sum);
      const next = stored === undefined ? undefined : digest.applyTo(stored);
      saveClock.run(userId, last, next?.count ?? null, next === undefined ? null : digestSumBytes(next.sum));
      queueChangeEvents(userId, first, last, now);
      changedUsers.add(userId);
    },
    outboxChanged() {
      outboxOnly = true;
    },
    committed() {
      if (changedUsers.size > 0) signals.committed([...changedUsers]);
      if (outboxOnly) signals.outboxChanged();
      changedUsers.clear();
      outboxOnly = false;
    },
    rolledBack() {
      changedUsers.clear();
      outboxOnly = false;
    },
  };
}
