import type { Database } from 'better-sqlite3';

/** A user's change clock as a write starts from it. */
export interface UserClock {
  /**
   * The last modifiedAt given to the user's meals; for a user with no clock row, the erasure
   * floor (migration 11), so that no position of an erased former life under the same id is
   * ever passed by a new meal; undefined when neither exists.
   */
  readonly last: number | undefined;
  /** The user has no clock row: no meal, live or tombstone, was ever stored under the id (since an erasure). */
  readonly isNew: boolean;
}

/** Reads a user's clock inside the write's transaction (domain/change-clock.ts nextModifiedAt takes `last`). */
export function createSqliteUserClock(db: Database): (userId: string) => UserClock {
  const own = db.prepare<[string], number>('SELECT last_modified_at FROM user_clocks WHERE user_id = ?').pluck();
  const floor = db.prepare<[], number>('SELECT at FROM clock_floor').pluck();
  return (userId) => {
    const last = own.get(userId);
    return last === undefined ? { last: floor.get(), isNew: true } : { last, isNew: false };
  };
}
