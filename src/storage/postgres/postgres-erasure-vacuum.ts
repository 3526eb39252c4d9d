import type { Sql } from 'postgres';

/** Every table a user's rows live in (postgres-user-erasure.ts deletes from each). */
const ERASED_TABLES = [
  'meals',
  'user_clocks',
  'api_keys',
  'key_daily_requests',
  'login_tokens',
  'oauth_codes',
  'app_sessions',
  'app_session_flashes',
  'webhook_endpoints',
  'webhook_events',
  'webhook_attempts',
];

/** How long one instance holds the vacuum before another may take it (one that died mid-way). */
const CLAIM_MS = 10 * 60_000;

/**
 * Vacuums the tables an erasure emptied rows of, when one is due (docs/operations.md#erasure-and-backups):
 * a DELETE leaves the rows' bytes in the table's pages until VACUUM frees them for reuse. One
 * instance at a time takes it (a lease, no session lock: it works behind a transaction pooler);
 * erasures made while it runs leave it due again. True when it ran.
 */
export async function vacuumAfterErasures(sql: Sql, now: number): Promise<boolean> {
  const [claimed] = await sql.unsafe<{ erasures: number }[]>(
    `UPDATE erasure_vacuum SET claimed_until = $1
     WHERE one = 1 AND (claimed_until IS NULL OR claimed_until < $2) RETURNING erasures`,
    [now + CLAIM_MS, now],
  );
  if (claimed === undefined) return false;
  try {
    // Outside a transaction block, as VACUUM must be; the table names are this file's own.
    await sql.unsafe(`VACUUM ${ERASED_TABLES.join(', ')}`);
  } catch (error) {
    await sql.unsafe('UPDATE erasure_vacuum SET claimed_until = NULL WHERE one = 1').catch(() => undefined);
    throw error;
  }
  const [done] = await sql.unsafe('DELETE FROM erasure_vacuum WHERE one = 1 AND erasures = $1 RETURNING one', [
    claimed.erasures,
  ]);
  if (done === undefined) await sql.unsafe('UPDATE erasure_vacuum SET claimed_until = NULL WHERE one = 1');
  return true;
}
