import type { Sql } from 'postgres';
import type { MealSave } from '../../domain/meal.js';
import { encodeMealContent, MEAL_JSON_END } from '../../domain/meal-json.js';
import type { SaveOutcome, SaveResult } from '../meal-writes.js';
import { commitInputs } from './postgres-commit.js';

const PREPARED = { prepare: true } as const;

/**
 * MealWrites.saveMeal on PostgreSQL, one attempt: one statement, one round trip, a call of
 * meal_export_save_meal (postgres-functions-decision.ts), which decides by the rules the batch
 * statement applies to every record (postgres-batch-statement.ts), under the user's clock lock. JS encodes
 * the meal's content, as for every write. The caller runs it again when another user's write
 * took an unknown id between the look-up and the insert (unique): the next attempt finds it
 * foreign.
 */
export async function saveMealOnce(sql: Sql, userId: string, meal: MealSave, now: number): Promise<SaveResult> {
  const [row] = await sql.unsafe<{ outcome: SaveOutcome | 'foreign_id'; meal_modified_at: number | null }[]>(
    `SELECT outcome, meal_modified_at
     FROM meal_export_save_meal($1::text, $2::text, $3::text, $4::text, $5::bigint, $6::bigint, $7::text, $8::text[], $9::integer)`,
    [userId, meal.id, encodeMealContent(meal), MEAL_JSON_END, meal.sourceVersion ?? null, now, ...commitInputs()],
    PREPARED,
  );
  if (row?.outcome === 'foreign_id') return { ok: false, reason: 'foreign_id', index: 0 };
  if (row === undefined || row.meal_modified_at === null)
    throw new Error('a save of one meal ended without its modifiedAt');
  return { ok: true, outcome: row.outcome, modifiedAt: row.meal_modified_at };
}
