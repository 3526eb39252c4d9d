/**
 * The commit step of every change of a user's meals on PostgreSQL as one function
 * (docs/architecture.md#one-way-a-change-flows): the batch statement calls it once per user
 * (postgres-batch-statement.ts), the single-meal writes (postgres-functions-decision.ts) inside
 * their own statement. Its parameters are named as the columns they fill, so `#variable_conflict
 * use_column` reads a bare name in a query as the column, and a parameter is written with its
 * function's name.
 * Part of migration 10 (migrations.ts): released migrations are never edited; a later change
 * of these functions is a new migration that replaces them.
 */
export const COMMIT_FUNCTION_SQL = `
-- The commit step that ends every change of a user's meals (postgres-commit.ts commitChange
-- calls it for the batch writes, postgres-functions-single-writes.ts for one meal), inside the change's
-- transaction, which holds the user's clock lock: the clock and the digest move (a digest not
-- computed yet stays null: the backfill computes it, postgres-digest-backfill.ts), the change
-- sequence takes its next value for the processes that cannot LISTEN (postgres-change-poll.ts),
-- every listening process is notified (on commit: PostgreSQL sends no NOTIFY of a transaction
-- rolled back), the payload naming the store's schema beside the user (postgres-feed-signals.ts),
-- and the user's "meals changed" events are queued, as sqlite-webhook-outbox.ts does:
-- each endpoint's open event extended, else a new one. Races:
-- - a sender claiming the open event: the UPDATE waits for its row lock, rechecks it (READ
--   COMMITTED), finds it sealed and leaves it, so a change never goes into an event already
--   handed to a sender;
-- - the endpoint being deleted: FOR KEY SHARE waits for the delete and skips the row, or holds
--   the delete back until this commits (its cascade then takes the new event);
-- - a test event queued with the same seq (postgres-webhooks.ts): the insert fails (unique), and
--   the queueing alone runs again, in a block of its own (a subtransaction), up to
--   queue_attempts times. The event ids of a try rolled back were never stored: the next try
--   uses them again.
CREATE FUNCTION meal_export_commit_change(
  user_id text, first_at bigint, last_at bigint, now_at bigint, new_live_count bigint, new_digest_sum bytea,
  channel text, event_ids text[], queue_attempts integer
) RETURNS void
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  attempt integer := 1;
BEGIN
  UPDATE user_clocks AS clock SET last_modified_at = last_at, live_count = new_live_count,
    digest_sum = new_digest_sum, change_seq = nextval('user_clock_changes')
  WHERE clock.user_id = meal_export_commit_change.user_id;
  IF FOUND THEN
    PERFORM pg_notify(channel, json_build_array(current_schema(), meal_export_commit_change.user_id)::text);
  END IF;
  -- Most users have no endpoint: nothing to queue, nothing to collide with, and no block (a
  -- subtransaction) to enter. An endpoint committed meanwhile is as one committed after this.
  IF NOT EXISTS (SELECT FROM webhook_endpoints AS endpoint WHERE endpoint.user_id = meal_export_commit_change.user_id) THEN
    RETURN;
  END IF;
  LOOP
    BEGIN
      WITH target AS MATERIALIZED (
        SELECT endpoint.id, (SELECT max(seq) FROM webhook_events WHERE endpoint_id = endpoint.id) AS newest_seq
        FROM webhook_endpoints AS endpoint WHERE endpoint.user_id = meal_export_commit_change.user_id
        FOR KEY SHARE
      ), numbered AS (
        SELECT target.*, row_number() OVER (ORDER BY target.id) AS n FROM target
      ), extended AS (
        UPDATE webhook_events AS event SET through_at = greatest(event.through_at, last_at)
        FROM target
        WHERE event.endpoint_id = target.id AND event.seq = target.newest_seq
          AND event.type = 'meals.changed' AND event.claimed_at IS NULL
        RETURNING event.endpoint_id
      )
      INSERT INTO webhook_events (endpoint_id, seq, id, type, from_at, through_at, attempts, next_attempt_at, created_at)
      SELECT numbered.id, coalesce(numbered.newest_seq, 0) + 1, event_ids[numbered.n],
             'meals.changed', first_at, last_at, 0, now_at, now_at
      FROM numbered WHERE numbered.id NOT IN (SELECT endpoint_id FROM extended);
      RETURN;
    EXCEPTION WHEN unique_violation THEN
      IF attempt >= queue_attempts THEN
        RAISE;
      END IF;
      attempt := attempt + 1;
    END;
  END LOOP;
END
$fn$;
`;
