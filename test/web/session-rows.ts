import BetterSqlite3 from 'better-sqlite3';

export interface SessionTimes {
  readonly createdAt: number;
  readonly expiresAt: number;
}

/**
 * A user's app-page session as the server's SQLite store holds it, read and set from the test:
 * time passes for a session without the test waiting an hour (docs/app.md#staying-signed-in).
 */
export function sessionRows(db: string) {
  const open = () => new BetterSqlite3(db);
  return {
    /** The user's one session (each test signs in a user of its own, once). */
    read(userId: string): SessionTimes {
      const handle = open();
      try {
        const row = handle
          .prepare<[string], { created_at: number; expires_at: number }>(
            'SELECT created_at, expires_at FROM app_sessions WHERE user_id = ?',
          )
          .get(userId);
        if (row === undefined) throw new Error(`no session of ${userId}`);
        return { createdAt: row.created_at, expiresAt: row.expires_at };
      } finally {
        handle.close();
      }
    },
    /** As if time had passed: the session made at `createdAt`, ending at `expiresAt`. */
    set(userId: string, times: Partial<SessionTimes>): void {
      const handle = open();
      try {
        const current = this.read(userId);
        handle
          .prepare('UPDATE app_sessions SET created_at = ?, expires_at = ? WHERE user_id = ?')
          .run(times.createdAt ?? current.createdAt, times.expiresAt ?? current.expiresAt, userId);
      } finally {
        handle.close();
      }
    },
  };
}
