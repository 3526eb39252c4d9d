import type { Sql } from 'postgres';
import { DigestChange, EMPTY_DIGEST } from '../../domain/meals-digest.js';
import { digestSumBytes } from '../digest-bytes.js';

const PREPARED = { prepare: true } as const;
/** Users filled per transaction: each holds its users' clock locks for milliseconds. */
const USERS_PER_BATCH = 100;

/**
 * Computes the digest of every user whose clock row predates it, from the user's live meals,
 * a batch of users per transaction under their clock locks (the lock every write takes), so no
 * write of theirs commits between the read and the update. Resumable, and safe on many
 * instances at once: a row another instance filled meanwhile is no longer null when the lock
 * is granted, and READ COMMITTED skips it.
 */
export async function backfillPostgresDigests(sql: Sql): Promise<void> {
  for (;;) {
    const filled = await sql.begin(async (tx) => {
      const users = await tx.unsafe<{ user_id: string }[]>(
        'SELECT user_id FROM user_clocks WHERE live_count IS NULL LIMIT $1 FOR UPDATE',
        [USERS_PER_BATCH],
        PREPARED,
      );
      for (const { user_id: userId } of users) {
        const meals = await tx.unsafe<{ id: string; modified_at: number }[]>(
          'SELECT id, modified_at FROM meals WHERE user_id = $1 AND NOT deleted',
          [userId],
          PREPARED,
        );
        const change = new DigestChange();
        for (const meal of meals) change.add(meal.id, Number(meal.modified_at));
        const digest = change.applyTo(EMPTY_DIGEST);
        await tx.unsafe(
          'UPDATE user_clocks SET live_count = $2, digest_sum = $3 WHERE user_id = $1',
          [userId, digest.count, digestSumBytes(digest.sum)],
          PREPARED,
        );
      }
      return users.length;
    });
    if (filled === 0) return;
  }
}
