import type { Sql } from 'postgres';
import { nextModifiedAt } from '../../domain/change-clock.js';
import { DigestChange } from '../../domain/meals-digest.js';
import { encodeTombstone } from '../../domain/meal-json.js';
import type { DeleteResult } from '../meal-writes.js';
import { stepOfDelete } from '../save-step.js';
import { lockClock } from './postgres-clock-lock.js';
import { commitChange } from './postgres-commit.js';

const PREPARED = { prepare: true } as const;

/**
 * MealWrites.deleteMeal on PostgreSQL, one attempt: the caller runs it again when another
 * user's write took an unknown id between the look-up and the tombstone's insert (the next
 * attempt finds it foreign). The tombstone is the meal's row updated in place, so it keeps
 * the row's sourceVersion unless a newer one comes.
 */
export async function deleteMealOnce(
  sql: Sql,
  userId: string,
  mealId: string,
  now: number,
  sourceVersion: number | undefined,
): Promise<DeleteResult> {
  // The owner first, without a lock: an id that is not the user's takes no user's lock.
  const [owner] = await sql.unsafe<{ user_id: string }[]>(
    'SELECT user_id FROM meals WHERE id = $1',
    [mealId],
    PREPARED,
  );
  if (owner?.user_id !== userId) {
    // Not the user's: answered here, unless an unknown id is to get its tombstone.
    const early = stepOfDelete(owner === undefined ? undefined : 'foreign', sourceVersion);
    if (early.kind === 'answer') return early.result;
  }
  return sql.begin(async (tx) => {
    const { clock, digest: digestBefore } = await lockClock(tx, userId);
    // Read again under the user's lock: what it says now cannot change until commit.
    const [row] = await tx.unsafe<{ deleted: boolean; modified_at: number; source_version: number | null }[]>(
      'SELECT deleted, modified_at, source_version FROM meals WHERE id = $1 AND user_id = $2',
      [mealId, userId],
      PREPARED,
    );
    const step = stepOfDelete(row && { deleted: row.deleted, sourceVersion: row.source_version }, sourceVersion);
    if (step.kind === 'answer') return step.result;
    if (step.kind === 'already_deleted') {
      if (step.recordVersion !== undefined) {
        await tx.unsafe(
          'UPDATE meals SET source_version = $3 WHERE id = $1 AND user_id = $2',
          [mealId, userId, step.recordVersion],
          PREPARED,
        );
      }
      return 'already_deleted';
    }
    const digest = new DigestChange();
    const modifiedAt = nextModifiedAt(clock, now);
    const tombstoneBody = encodeTombstone(mealId, modifiedAt);
    if (row === undefined) {
      // An id no user has. Another user's insert meanwhile fails this one (unique id), and the
      // caller tries again. No live meal goes, so the digest stays as it is.
      await tx.unsafe(
        `INSERT INTO meals (user_id, modified_at, id, deleted, body, source_version) VALUES ($1, $2, $3, true, $4, $5)`,
        [userId, modifiedAt, mealId, tombstoneBody, step.sourceVersion],
        PREPARED,
      );
    } else {
      await tx.unsafe(
        `UPDATE meals SET modified_at = $3, deleted = true, body = $4, source_version = $5
         WHERE id = $1 AND user_id = $2`,
        [mealId, userId, modifiedAt, tombstoneBody, step.sourceVersion],
        PREPARED,
      );
      digest.remove(mealId, row.modified_at);
    }
    await commitChange(tx, { userId, first: modifiedAt, last: modifiedAt, now, digestBefore, digest });
    return 'deleted';
  });
}
