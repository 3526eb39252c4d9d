import type { Database } from 'better-sqlite3';

/**
 * Queues the "meals changed" events of a change, inside the transaction that saves the user's
 * clock (sqlite-commit.ts), so no change commits without its event (docs/webhooks.md#the-call). For each endpoint of the user, enabled or not, the open event
 * (its newest, a meals.changed never claimed) has its `through` moved up; otherwise a new event
 * follows the newest, due now. One statement: a user without endpoints costs one probe of
 * webhook_endpoints_by_user. SQLite has one writer at a time, so the event the statement finds
 * open stays open until it commits.
 */
export function createSqliteWebhookOutbox(db: Database) {
  const queue = db.prepare<[{ userId: string; from: number; through: number; now: number }]>(
    `INSERT INTO webhook_events (endpoint_id, seq, id, type, from_at, through_at, attempts, next_attempt_at, created_at)
     SELECT endpoint.id,
            CASE WHEN newest.seq IS NULL THEN 1
                 WHEN newest.type = 'meals.changed' AND newest.claimed_at IS NULL THEN newest.seq
                 ELSE newest.seq + 1 END,
            new_webhook_event_id(), 'meals.changed', @from, @through, 0, @now, @now
     FROM webhook_endpoints AS endpoint
     LEFT JOIN webhook_events AS newest ON newest.endpoint_id = endpoint.id
       AND newest.seq = (SELECT max(seq) FROM webhook_events WHERE endpoint_id = endpoint.id)
     WHERE endpoint.user_id = @userId
     ON CONFLICT (endpoint_id, seq) DO UPDATE SET through_at = max(through_at, excluded.through_at)`,
  );

  /** `from` and `through`: the modifiedAt of the transaction's first and last change. */
  return function queueChangeEvents(userId: string, from: number, through: number, now: number): void {
    queue.run({ userId, from, through, now });
  };
}
