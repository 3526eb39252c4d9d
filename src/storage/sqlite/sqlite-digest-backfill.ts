import type { Database } from 'better-sqlite3';
import { DigestChange, EMPTY_DIGEST } from '../../domain/meals-digest.js';
import { digestSumBytes } from '../digest-bytes.js';

/** Users filled per transaction: each holds the write lock for milliseconds, not for the whole store. */
const USERS_PER_BATCH = 100;

/** Whether some user's digest is still to be computed (one probe of a partial index). */
export function digestsPending(db: Database): boolean {
  return db.prepare('SELECT 1 FROM user_clocks WHERE live_count IS NULL LIMIT 1').get() !== undefined;
}

/**
 * Computes the digest of every user whose clock row predates it, from the user's live meals,
 * a batch of users per IMMEDIATE transaction. Resumable: it fills what is still null, so a
 * process stopped halfway leaves the rest to the next. A write of such a user meanwhile leaves
 * the digest null (sqlite-commit.ts), and the next batch picks the user up again.
 */
export function backfillSqliteDigests(db: Database): void {
  const pending = db
    .prepare<[number], string>('SELECT user_id FROM user_clocks WHERE live_count IS NULL LIMIT ?')
    .pluck();
  const liveMeals = db.prepare<[string], { id: string; modified_at: number }>(
    'SELECT id, modified_at FROM meals WHERE user_id = ? AND deleted = 0',
  );
  const save = db.prepare('UPDATE user_clocks SET live_count = ?, digest_sum = ? WHERE user_id = ?');
  const fill = db.transaction((users: readonly string[]) => {
    for (const userId of users) {
      const change = new DigestChange();
      for (const meal of liveMeals.iterate(userId)) change.add(meal.id, meal.modified_at);
      const digest = change.applyTo(EMPTY_DIGEST);
      save.run(digest.count, digestSumBytes(digest.sum), userId);
    }
  });
  for (;;) {
    const users = pending.all(USERS_PER_BATCH);
    if (users.length === 0) return;
    fill.immediate(users);
  }
}
