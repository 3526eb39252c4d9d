/**
 * The per-user change clock (docs/api.md#the-call, "No change is ever missed"): every write
 * of a meal gets max(now, the user's last modifiedAt + 1 ms), so a user's modifiedAt strictly
 * increases in commit order. Storage adapters call it inside the write transaction that
 * serialises the user's writes; PostgreSQL's writes compute it in SQL
 * (storage/postgres/postgres-functions-decision.ts, postgres-batch-statement.ts).
 */
export function nextModifiedAt(lastModifiedAt: number | undefined, now: number): number {
  return lastModifiedAt === undefined ? now : Math.max(now, lastModifiedAt + 1);
}
