import type { Database } from 'better-sqlite3';
import type { MealSave } from '../../domain/meal.js';
import { encodeMeal } from '../../domain/meal-json.js';

/** Rows per INSERT: one statement for many rows costs far less per row than one each. */
const ROWS_PER_STATEMENT = 50;
const COLUMNS = 'INSERT INTO meals (user_id, modified_at, id, deleted, body, source_version) VALUES';
const ROW = '(?, ?, ?, 0, ?, ?)';
const PARAMS_PER_ROW = 5;

/**
 * Appends meals that are all new, with consecutive modifiedAt from `firstModifiedAt`, without
 * looking any id up first. A duplicate id (another user's, or twice in the input) makes the
 * unique index raise SQLITE_CONSTRAINT: the caller's transaction rolls back and the caller
 * takes the path that looks each id up. Runs inside the caller's write transaction. New meals
 * have no stored sourceVersion, so each keeps its own (domain/source-version.ts).
 */
export function createSqliteAppender(db: Database) {
  const many = db.prepare(`${COLUMNS} ${Array.from({ length: ROWS_PER_STATEMENT }, () => ROW).join(', ')}`);
  const one = db.prepare(`${COLUMNS} ${ROW}`);
  const params: unknown[] = new Array(ROWS_PER_STATEMENT * PARAMS_PER_ROW);

  return function appendNewMeals(userId: string, meals: readonly MealSave[], firstModifiedAt: number): number {
    let index = 0;
    const rowOf = (meal: MealSave, modifiedAt: number) =>
      [userId, modifiedAt, meal.id, encodeMeal(meal, modifiedAt), meal.sourceVersion ?? null] as const;
    for (; index + ROWS_PER_STATEMENT <= meals.length; index += ROWS_PER_STATEMENT) {
      for (let row = 0; row < ROWS_PER_STATEMENT; row += 1) {
        const meal = meals[index + row] as MealSave;
        const values = rowOf(meal, firstModifiedAt + index + row);
        for (let column = 0; column < PARAMS_PER_ROW; column += 1)
          params[row * PARAMS_PER_ROW + column] = values[column];
      }
      many.run(params);
    }
    for (; index < meals.length; index += 1) one.run(rowOf(meals[index] as MealSave, firstModifiedAt + index));
    return firstModifiedAt + meals.length - 1;
  };
}

/** True for SQLite's constraint failures (a unique id already taken). */
export function isConstraintFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}
