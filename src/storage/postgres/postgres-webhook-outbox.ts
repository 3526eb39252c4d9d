import type { TransactionSql } from 'postgres';

const PREPARED = { prepare: true } as const;

export interface QueuedChange {
  readonly userId: string;
  /** The modifiedAt of the transaction's first and last change. */
  readonly from: number;
  readonly through: number;
  readonly now: number;
  /** Fresh event ids, one for each endpoint the user may have (domain/webhook-ids.ts). */
  readonly eventIds: readonly string[];
}

/**
 * A change's "meals changed" events in one statement (as sqlite-webhook-outbox.ts): each endpoint's
 * open event extended, else a new one. The caller's clock row lock serialises the user's writes. Races:
 * - a sender claiming the open event: the UPDATE waits for its row lock, rechecks it (READ COMMITTED),
 *   finds it sealed and leaves it, so a change never goes into an event already handed to a sender;
 * - the endpoint being deleted: FOR KEY SHARE waits for the delete and skips the row, or holds the
 *   delete back until this commits (its cascade then takes the new event);
 * - a test event queued with the same seq: the insert fails (unique), and the caller queues again.
 */
export async function queueChangeEvents(tx: TransactionSql, change: QueuedChange): Promise<void> {
  const { userId, from, through, now, eventIds } = change;
  await tx.unsafe(
    `WITH target AS MATERIALIZED (
       SELECT endpoint.id, (SELECT max(seq) FROM webhook_events WHERE endpoint_id = endpoint.id) AS newest_seq
       FROM webhook_endpoints AS endpoint WHERE endpoint.user_id = $1
       FOR KEY SHARE
     ), numbered AS (
       SELECT target.*, row_number() OVER (ORDER BY target.id) AS n FROM target
     ), extended AS (
       UPDATE webhook_events AS event SET through_at = greatest(event.through_at, $3)
       FROM target
       WHERE event.endpoint_id = target.id AND event.seq = target.newest_seq
         AND event.type = 'meals.changed' AND event.claimed_at IS NULL
       RETURNING event.endpoint_id
     )
     INSERT INTO webhook_events (endpoint_id, seq, id, type, from_at, through_at, attempts, next_attempt_at, created_at)
     SELECT numbered.id, coalesce(numbered.newest_seq, 0) + 1, ($5::text[])[numbered.n],
            'meals.changed', $2, $3, 0, $4, $4
     FROM numbered WHERE numbered.id NOT IN (SELECT endpoint_id FROM extended)`,
    [userId, from, through, now, eventIds],
    PREPARED,
  );
}
