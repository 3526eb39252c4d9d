import BetterSqlite3 from 'better-sqlite3';
import postgres from 'postgres';

/**
 * A store opened beside the product, by hand: to make it as an older version left it, or to
 * read its rows as they are. One connection, closed after `work`.
 */
export function withSqlite<T>(file: string, work: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(file);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

export async function withPostgres<T>(url: string, work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/** Every user clock row, digest included, as text that changes whenever a value does. */
export function sqliteClockRows(file: string): string[] {
  return withSqlite(file, (db) =>
    db
      .prepare('SELECT * FROM user_clocks ORDER BY user_id')
      .all()
      .map((row) =>
        JSON.stringify(row, (_, value: unknown) => (Buffer.isBuffer(value) ? value.toString('hex') : value)),
      ),
  );
}

/**
 * Every user clock row, digest included, as text that changes whenever the row is written:
 * xmin names the transaction that last wrote it, and moves even when a write leaves the values alone.
 */
export function postgresClockRows(url: string): Promise<string[]> {
  return withPostgres(url, async (sql) => {
    const rows = await sql.unsafe(
      `SELECT user_id, xmin::text AS written_by, last_modified_at::text, live_count::text, encode(digest_sum, 'hex') AS sum
       FROM user_clocks ORDER BY user_id`,
    );
    return rows.map((row) => JSON.stringify(row));
  });
}
