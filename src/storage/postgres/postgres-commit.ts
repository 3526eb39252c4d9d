import type { TransactionSql } from 'postgres';
import type { DigestChange, MealsDigest } from '../../domain/meals-digest.js';
import { newWebhookEventIds } from '../../domain/webhook-ids.js';
import { digestSumBytes } from '../digest-bytes.js';
import { MAX_WEBHOOKS_PER_USER } from '../../domain/webhook-endpoint.js';
import { FEED_CHANNEL } from './postgres-feed-signals.js';

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
 * What the commit step takes from JS, the last three arguments of every function that ends in
 * it (postgres-functions-commit.ts): the channel every listening process hears, an event id for
 * each endpoint the user may have, from the one maker of event ids, and the queueing's tries.
 */
export function commitInputs(): [channel: string, eventIds: string[], queueAttempts: number] {
  return [FEED_CHANNEL, newWebhookEventIds(MAX_WEBHOOKS_PER_USER), MAX_QUEUE_ATTEMPTS];
}

/**
 * The one step that ends every change of a user's meals on PostgreSQL
 * (docs/architecture.md#one-way-a-change-flows), inside the change's transaction, which holds
 * the user's clock lock: one call of meal_export_commit_change (postgres-functions-commit.ts),
 * which moves the clock and the live meals' digest, notifies every listening process and
 * queues the user's webhook events. The batch writes come here with the digest their meals
 * moved; a single save or delete makes the same call inside its own function. A write that
 * changed nothing never comes here.
 */
export async function commitChange(tx: TransactionSql, change: CommittedChange): Promise<void> {
  const { userId, first, last, now } = change;
  // A digest not computed yet (null) stays null: the backfill computes it from the meals.
  const digest = change.digestBefore === undefined ? undefined : change.digest.applyTo(change.digestBefore);
  await tx.unsafe(
    'SELECT meal_export_commit_change($1::text, $2::bigint, $3::bigint, $4::bigint, $5::bigint, $6::bytea, $7::text, $8::text[], $9::integer)',
    [
      userId,
      first,
      last,
      now,
      digest?.count ?? null,
      digest === undefined ? null : digestSumBytes(digest.sum),
      ...commitInputs(),
    ],
    PREPARED,
  );
}
