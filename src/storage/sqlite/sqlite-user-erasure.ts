import type { Database } from 'better-sqlite3';
import { AppError } from '../../errors.js';
import type { Implementation } from '../guarded-concerns.js';
import type { ErasedCounts, UserErasure } from '../user-erasure.js';
import type { SqliteCommit } from './sqlite-commit.js';

/** Every other connection's write mode (sqlite-storage.ts open): what a delete frees is zeroed in its page. */
export const SECURE_DELETE_ALWAYS = 'secure_delete = FAST';

/**
 * UserErasure on SQLite. Gone from the files, not only from the answers: the transaction runs
 * with `secure_delete` fully on (what it deletes is overwritten with zeros, freed pages
 * included), then the write-ahead log, which holds the pages as they were, is checkpointed
 * into the main file and truncated to nothing before the call answers. A checkpoint that a
 * reader holding an old snapshot keeps from finishing is `unavailable`: the user is erased,
 * and the call, tried again, answers zeros and truncates the log then.
 */
export function createSqliteUserErasure(db: Database, commit: SqliteCommit): Implementation<UserErasure> {
  const count = (sql: string) => db.prepare<[string], number>(sql).pluck();
  const run = (sql: string) => db.prepare<[string]>(sql);
  const countMeals = count('SELECT count(*) FROM meals WHERE user_id = ?');
  const countKeys = count('SELECT count(*) FROM api_keys WHERE user_id = ?');
  const countWebhooks = count('SELECT count(*) FROM webhook_endpoints WHERE user_id = ?');
  const clockOf = db.prepare<[string], { last_modified_at: number; change_seq: number | null }>(
    'SELECT last_modified_at, change_seq FROM user_clocks WHERE user_id = ?',
  );
  const raiseFloor = db.prepare<[number, number]>(
    `INSERT INTO clock_floor (one, at, change_seq) VALUES (1, ?, ?)
     ON CONFLICT (one) DO UPDATE SET at = max(at, excluded.at), change_seq = max(change_seq, excluded.change_seq)`,
  );
  const endpointsOf = 'SELECT id FROM webhook_endpoints WHERE user_id = ?';
  const removals = [
    run('DELETE FROM meals WHERE user_id = ?'),
    run('DELETE FROM user_clocks WHERE user_id = ?'),
    run('DELETE FROM key_daily_requests WHERE key_id IN (SELECT id FROM api_keys WHERE user_id = ?)'),
    run('DELETE FROM api_keys WHERE user_id = ?'),
    run('DELETE FROM login_tokens WHERE user_id = ?'),
    run('DELETE FROM oauth_codes WHERE user_id = ?'),
    run('DELETE FROM app_session_flashes WHERE session_digest IN (SELECT digest FROM app_sessions WHERE user_id = ?)'),
    run('DELETE FROM app_sessions WHERE user_id = ?'),
    run(`DELETE FROM webhook_events WHERE endpoint_id IN (${endpointsOf})`),
    run(`DELETE FROM webhook_attempts WHERE endpoint_id IN (${endpointsOf})`),
    run("DELETE FROM webhook_endpoints WHERE user_id = ? AND status <> 'enabled'"),
  ];
  // The last event of each enabled endpoint, then the endpoint out of the user's reach: its
  // name and last outcome go with the user; its URL and secrets stay for the call.
  const queueErased = db.prepare<[{ userId: string; now: number }]>(
    `INSERT INTO webhook_events (endpoint_id, seq, id, type, attempts, next_attempt_at, created_at)
     SELECT id, 1, new_webhook_event_id(), 'user.erased', 0, @now, @now FROM webhook_endpoints WHERE user_id = @userId`,
  );
  const detachEndpoints = run(
    `UPDATE webhook_endpoints SET erased_user_id = user_id, user_id = '', name = '',
       last_attempt_at = NULL, last_status = NULL, last_delivered_at = NULL
     WHERE user_id = ?`,
  );

  const erase = db.transaction((userId: string, now: number): ErasedCounts => {
    const counts = {
      meals: countMeals.get(userId) ?? 0,
      keys: countKeys.get(userId) ?? 0,
      webhooks: countWebhooks.get(userId) ?? 0,
    };
    const clock = clockOf.get(userId);
    if (clock !== undefined) raiseFloor.run(clock.last_modified_at, clock.change_seq ?? 0);
    for (const removal of removals) removal.run(userId);
    if (queueErased.run({ userId, now }).changes > 0) commit.outboxChanged();
    detachEndpoints.run(userId);
    return counts;
  });

  return {
    eraseUser(userId: string, now: number): ErasedCounts {
      db.pragma('secure_delete = ON');
      let counts: ErasedCounts;
      try {
        counts = erase.immediate(userId, now);
      } finally {
        db.pragma(SECURE_DELETE_ALWAYS);
      }
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result === undefined || result.busy !== 0) {
        throw new AppError(
          'unavailable',
          'The user is erased, but a reader kept the write-ahead log from being emptied: try again.',
        );
      }
      return counts;
    },

    // Nothing is left behind to vacuum: the erasure zeroed what it deleted.
    vacuumErased: () => false,
  };
}
