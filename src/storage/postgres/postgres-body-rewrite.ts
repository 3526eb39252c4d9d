import type { Sql } from 'postgres';
import {
  bodyRewriteSql,
  CURRENT_BODY_VERSION,
  MEAL_BODY_VERSION_SETTING,
  MEALS_PER_REWRITE_BATCH,
  storedBodyVersion,
} from '../meal-body-rewrite.js';

const PREPARED = { prepare: true } as const;

interface MealKey {
  readonly user_id: string;
  readonly modified_at: number;
  readonly id: string;
}

/**
 * Writes the fields the Meal gained into every older live body (storage/meal-body-rewrite.ts),
 * in primary key order, a batch of meals per statement, each its own transaction: the instances
 * answering meanwhile wait for a batch's row locks at most. Resumable, and safe on many
 * instances at once: a body another instance rewrote is re-read when its lock is granted
 * (READ COMMITTED), and no longer lacks the field. The version is recorded at the end.
 */
export async function rewritePostgresBodies(sql: Sql): Promise<void> {
  const [row] = await sql.unsafe<{ value: Buffer }[]>('SELECT value FROM settings WHERE name = $1', [
    MEAL_BODY_VERSION_SETTING,
  ]);
  const rewrite = bodyRewriteSql(storedBodyVersion(row?.value), 'strpos');
  if (rewrite === undefined) return;
  const after = `(user_id, modified_at, id) > ($1, $2, $3) AND NOT deleted AND ${rewrite.condition}`;
  let from: MealKey = { user_id: '', modified_at: Number.MIN_SAFE_INTEGER, id: '' };
  for (;;) {
    const [last] = await sql.unsafe<MealKey[]>(
      'SELECT user_id, modified_at, id FROM meals WHERE (user_id, modified_at, id) > ($1, $2, $3) ORDER BY user_id, modified_at, id LIMIT 1 OFFSET $4',
      [from.user_id, from.modified_at, from.id, MEALS_PER_REWRITE_BATCH - 1],
      PREPARED,
    );
    if (last === undefined) {
      await sql.unsafe(
        `UPDATE meals SET body = ${rewrite.expression} WHERE ${after}`,
        [from.user_id, from.modified_at, from.id],
        PREPARED,
      );
      break;
    }
    await sql.unsafe(
      `UPDATE meals SET body = ${rewrite.expression} WHERE ${after} AND (user_id, modified_at, id) <= ($4, $5, $6)`,
      [from.user_id, from.modified_at, from.id, last.user_id, last.modified_at, last.id],
      PREPARED,
    );
    from = last;
  }
  await sql.unsafe(
    'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    [MEAL_BODY_VERSION_SETTING, CURRENT_BODY_VERSION],
  );
}
