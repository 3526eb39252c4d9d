import type { Database } from 'better-sqlite3';
import { nextModifiedAt } from '../../domain/change-clock.js';
import { DigestChange } from '../../domain/meals-digest.js';
import { encodeTombstone } from '../../domain/meal-json.js';
import type { DeleteResult } from '../meal-writes.js';
import { stepOfDelete } from '../save-step.js';
import type { SqliteCommit } from './sqlite-commit.js';
import { createSqliteUserClock } from './sqlite-user-clock.js';

interface StoredRow {
  readonly user_id: string;
  readonly modified_at: number;
  readonly deleted: number;
  readonly source_version: number | null;
}

/**
 * MealWrites.deleteMeal on SQLite, in one write transaction (SQLite has one writer, so what
 * the look-up reads holds until commit). A tombstone keeps the meal's sourceVersion: the row
 * is written again at its new place on the clock with the version carried over.
 */
export function createSqliteMealDelete(db: Database, commit: SqliteCommit) {
  const selectById = db.prepare<[string], StoredRow>(
    'SELECT user_id, modified_at, deleted, source_version FROM meals WHERE id = ?',
  );
  const userClock = createSqliteUserClock(db);
  const removeRow = db.prepare('DELETE FROM meals WHERE user_id = ? AND modified_at = ? AND id = ?');
  const insertTombstone = db.prepare(
    'INSERT INTO meals (user_id, modified_at, id, deleted, body, source_version) VALUES (?, ?, ?, 1, ?, ?)',
  );
  const setVersion = db.prepare('UPDATE meals SET source_version = ? WHERE id = ? AND user_id = ?');

  /** A new tombstone of the user's: a change through the commit step, removing `live` from the digest when it was live. */
  function tombstone(userId: string, mealId: string, now: number, version: number | null, live: number | undefined) {
    const modifiedAt = nextModifiedAt(userClock(userId).last, now);
    insertTombstone.run(userId, modifiedAt, mealId, encodeTombstone(mealId, modifiedAt), version);
    const digest = new DigestChange();
    if (live !== undefined) digest.remove(mealId, live);
    commit.commitChange(userId, modifiedAt, modifiedAt, now, digest);
  }

  const remove = db.transaction(
    (userId: string, mealId: string, now: number, sourceVersion: number | undefined): DeleteResult => {
      const existing = selectById.get(mealId);
      const met =
        existing === undefined
          ? undefined
          : existing.user_id !== userId
            ? 'foreign'
            : { deleted: existing.deleted !== 0, sourceVersion: existing.source_version };
      const step = stepOfDelete(met, sourceVersion);
      if (step.kind === 'answer') return step.result;
      if (step.kind === 'already_deleted') {
        if (step.recordVersion !== undefined) setVersion.run(step.recordVersion, mealId, userId);
        return 'already_deleted';
      }
      // A live meal's row goes and comes back as a tombstone; an id no user has only gets one.
      if (existing !== undefined) removeRow.run(userId, existing.modified_at, mealId);
      tombstone(userId, mealId, now, step.sourceVersion, existing?.modified_at);
      return 'deleted';
    },
  );

  return (userId: string, mealId: string, now: number, sourceVersion?: number): DeleteResult =>
    remove.immediate(userId, mealId, now, sourceVersion);
}
