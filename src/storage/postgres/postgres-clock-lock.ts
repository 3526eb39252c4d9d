import type { TransactionSql } from 'postgres';

const PREPARED = { prepare: true } as const;

/**
 * Locks the clock rows of the users a batch writes (creating the missing ones), in user id
 * order, so that two imports of many users cannot each hold one the other waits for: one call
 * of meal_export_lock_clock each (postgres-functions-decision.ts), the lock the single-meal
 * functions take too. Every write of a user's meals takes it before reading the meals it
 * writes, so what it reads (content, sourceVersion) cannot change until it commits: two saves
 * of one meal racing on two processes are decided one after the other. A statement of its own:
 * the batch statement after it takes its snapshot once the locks are held.
 */
export async function lockClocks(tx: TransactionSql, userIds: readonly string[]): Promise<void> {
  const [only, ...others] = userIds;
  if (only !== undefined && others.length === 0) {
    await tx.unsafe('SELECT FROM meal_export_lock_clock($1::text, true)', [only], PREPARED);
    return;
  }
  await tx.unsafe(
    `SELECT FROM (SELECT user_id FROM unnest($1::text[]) AS user_id ORDER BY user_id COLLATE "C" OFFSET 0) AS sorted,
       LATERAL meal_export_lock_clock(sorted.user_id, true)`,
    [[...userIds]],
    PREPARED,
  );
}
