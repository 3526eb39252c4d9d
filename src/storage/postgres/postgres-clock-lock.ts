import type { TransactionSql } from 'postgres';
import type { MealsDigest } from '../../domain/meals-digest.js';
import { storedDigest } from '../digest-bytes.js';

const PREPARED = { prepare: true } as const;

export interface LockedClock {
  readonly clock: number | undefined;
  /** The user's live meals' digest; undefined while not computed yet (a row older than it). */
  readonly digest: MealsDigest | undefined;
}

/**
 * Locks the user's clock row (creating it first), serialising the user's writes; what it holds.
 * Every write of a user's meals takes it before reading the meals it writes, so what it reads
 * (content, sourceVersion) cannot change until it commits: two saves of one meal racing on two
 * processes are decided one after the other. The batch writes take it here; a single-meal save
 * or delete takes the same lock inside its one statement (postgres-functions-single-writes.ts).
 */
export async function lockClock(tx: TransactionSql, userId: string): Promise<LockedClock> {
  await tx.unsafe('INSERT INTO user_clocks (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING', [userId], PREPARED);
  const [row] = await tx.unsafe<
    { last_modified_at: number | null; live_count: number | null; digest_sum: Buffer | null }[]
  >(
    'SELECT last_modified_at, live_count, digest_sum FROM user_clocks WHERE user_id = $1 FOR UPDATE',
    [userId],
    PREPARED,
  );
  return {
    clock: row?.last_modified_at ?? undefined,
    digest: storedDigest(true, row?.live_count === null ? null : Number(row?.live_count), row?.digest_sum),
  };
}
