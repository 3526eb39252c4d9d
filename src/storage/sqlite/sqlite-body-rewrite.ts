import type { Database } from 'better-sqlite3';
import {
  bodyRewriteSql,
  CURRENT_BODY_VERSION,
  MEAL_BODY_VERSION_SETTING,
  MEALS_PER_REWRITE_BATCH,
  storedBodyVersion,
} from '../meal-body-rewrite.js';

interface MealKey {
  readonly user_id: string;
  readonly modified_at: number;
  readonly id: string;
}

/** Whether the store's meal bodies are older than the Meal (one read of a settings row). */
export function bodiesPending(db: Database): boolean {
  return bodyRewriteSql(storedVersion(db), 'instr') !== undefined;
}

function storedVersion(db: Database): number {
  const row = db
    .prepare<[string], { value: Buffer }>('SELECT value FROM settings WHERE name = ?')
    .get(MEAL_BODY_VERSION_SETTING);
  return storedBodyVersion(row?.value);
}

/**
 * Writes the fields the Meal gained into every older live body (storage/meal-body-rewrite.ts),
 * in primary key order, a batch of meals per IMMEDIATE transaction: another process on the
 * store (a serve answering meanwhile) waits milliseconds, not the whole rewrite. Resumable: a
 * batch rewrites only bodies still without the field, and the version is recorded at the end.
 */
export function rewriteSqliteBodies(db: Database): void {
  const rewrite = bodyRewriteSql(storedVersion(db), 'instr');
  if (rewrite !== undefined) {
    const batchEnd = db.prepare<[string, number, string, number], MealKey>(
      'SELECT user_id, modified_at, id FROM meals WHERE (user_id, modified_at, id) > (?, ?, ?) ORDER BY user_id, modified_at, id LIMIT 1 OFFSET ?',
    );
    const after = `(user_id, modified_at, id) > (?, ?, ?) AND deleted = 0 AND ${rewrite.condition}`;
    const batch = db.prepare(
      `UPDATE meals SET body = ${rewrite.expression} WHERE ${after} AND (user_id, modified_at, id) <= (?, ?, ?)`,
    );
    const rest = db.prepare(`UPDATE meals SET body = ${rewrite.expression} WHERE ${after}`);
    let from: MealKey = { user_id: '', modified_at: Number.MIN_SAFE_INTEGER, id: '' };
    for (;;) {
      const start = from;
      const end = db
        .transaction(() => {
          const last = batchEnd.get(start.user_id, start.modified_at, start.id, MEALS_PER_REWRITE_BATCH - 1);
          if (last === undefined) rest.run(start.user_id, start.modified_at, start.id);
          else batch.run(start.user_id, start.modified_at, start.id, last.user_id, last.modified_at, last.id);
          return last;
        })
        .immediate();
      if (end === undefined) break;
      from = end;
    }
  }
  db.prepare(
    'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  ).run(MEAL_BODY_VERSION_SETTING, CURRENT_BODY_VERSION);
}
