import type { TransactionSql } from 'postgres';
import type { DigestChange, MealsDigest } from '../../domain/meals-digest.js';
import { newWebhookEventId } from '../../domain/webhook-ids.js';
import { digestSumBytes } from '../digest-bytes.js';
import { MAX_WEBHOOKS_PER_USER } from '../../domain/webhook-endpoint.js';
import { isUniqueViolation } from './postgres-errors.js';
import { FEED_CHANNEL } from './postgres-feed-signals.js';
import { queueChangeEvents } from './postgres-webhook-outbox.js';

const PREPARED = { prepare: true } as const;

/** A transaction's changes of one user, as its commit step records them. */
export interface CommittedChange {
  readonly userId: string;
  /** The modifiedAt of the transaction's first and last change. */
  readonly first: number;
  readonly last: number;
  readonly now: number;
  /** The user's digest as the clock lock read it (undefined: not computed yet), and what the changes did to it. */
  readonly digestBefore: MealsDigest | undefined;
  readonly digest: DigestChange;
}
/** A webhook test event queued meanwhile with the seq this change's event takes: the queueing runs again. */
const MAX_QUEUE_ATTEMPTS = 3;

/**
 * The one step that ends every change of a user's meals on PostgreSQL
 * (docs/architecture.md#one-way-a-change-flows), inside the change's transaction, which holds
 * the user's clock lock: the clock and the live meals' digest move, the user's change is
 * notified to every listening process in the same statement (PostgreSQL sends a NOTIFY on
 * commit only), and the user's webhook events are queued. A write that changed nothing never
 * comes here.
 */
export async function commitChange(tx: TransactionSql, change: CommittedChange): Promise<void> {
  const { userId, first, last, now } = change;
  // A digest not computed yet (null) stays null: the backfill computes it from the meals.
  const digest = change.digestBefore === undefined ? undefined : change.digest.applyTo(change.digestBefore);
  // Channels are per database, so the payload names the store's schema beside the user:
  // stores in other schemas ignore it (postgres-feed-signals.ts). The change sequence is for
  // the processes that cannot LISTEN (postgres-change-poll.ts).
  await tx.unsafe(
    `WITH saved AS (
       UPDATE user_clocks SET last_modified_at = $2, live_count = $3, digest_sum = $4,
         change_seq = nextval('user_clock_changes')
       WHERE user_id = $1 RETURNING user_id
     )
     SELECT pg_notify('${FEED_CHANNEL}', json_build_array(current_schema(), user_id)::text) FROM saved`,
    [userId, last, digest?.count ?? null, digest === undefined ? null : digestSumBytes(digest.sum)],
    PREPARED,
  );
  // In a savepoint, so that only the queueing runs again after a test event took its seq.
  for (let attempt = 1; ; attempt += 1) {
    // An id for each endpoint the user may have, from the one maker of event ids.
    const eventIds = Array.from({ length: MAX_WEBHOOKS_PER_USER }, newWebhookEventId);
    try {
      await tx.savepoint((point) => queueChangeEvents(point, { userId, from: first, through: last, now, eventIds }));
      return;
    } catch (error) {
      if (attempt >= MAX_QUEUE_ATTEMPTS || !isUniqueViolation(error)) throw error;
    }
  }
}
