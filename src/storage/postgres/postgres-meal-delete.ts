import type { Sql } from 'postgres';
import { tombstoneAround } from '../../domain/meal-json.js';
import type { DeleteResult } from '../meal-writes.js';
import { commitInputs } from './postgres-commit.js';

const PREPARED = { prepare: true } as const;

/**
 * MealWrites.deleteMeal on PostgreSQL, one attempt: one statement, one round trip, a call of
 * meal_export_delete_meal (postgres-functions-decision.ts), which decides as stepOfDelete does
 * (storage/save-step.ts) under the user's clock lock. The tombstone is the meal's row updated
 * in place, so it keeps the row's sourceVersion unless a newer one comes; its text around the
 * instant is made here (domain/meal-json.ts). The caller runs it again when another user's
 * write took an unknown id between the look-up and the tombstone's insert (unique): the next
 * attempt finds it foreign.
 */
export async function deleteMealOnce(
  sql: Sql,
  userId: string,
  mealId: string,
  now: number,
  sourceVersion: number | undefined,
): Promise<DeleteResult> {
  const [head, end] = tombstoneAround(mealId);
  const [row] = await sql.unsafe<{ outcome: DeleteResult }[]>(
    `SELECT meal_export_delete_meal($1::text, $2::text, $3::bigint, $4::bigint, $5::text, $6::text, $7::text, $8::text[], $9::integer) AS outcome`,
    [userId, mealId, sourceVersion ?? null, now, head, end, ...commitInputs()],
    PREPARED,
  );
  if (row === undefined) throw new Error('a delete of one meal ended without its outcome');
  return row.outcome;
}
