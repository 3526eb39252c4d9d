import postgres from 'postgres';
import { tombstoneAround } from '../../src/domain/meal-json.js';
import { commitInputs } from '../../src/storage/postgres/postgres-commit.js';
import { connectPostgres } from '../../src/storage/postgres/postgres-connect.js';
import { openStorage } from '../../src/storage/open-storage.js';

/** Users whose meals one statement deletes: 10 000 calls of the delete function. */
const USERS_A_STATEMENT = 100;

/** The tombstones made, then the prune that removed them, and the VACUUM after it. */
export interface PruneRun {
  readonly tombstones: number;
  readonly makeSeconds: number;
  readonly pruned: number;
  readonly pruneSeconds: number;
  readonly vacuumSeconds: number;
}

const seconds = (since: number) => Math.round(performance.now() - since) / 1000;

/**
 * Deletes every meal of `userIds` in a PostgreSQL store, then times the hourly prune
 * (MealWrites.pruneTombstones, as `serve` runs it: serve/tombstone-pruning.ts) with a cutoff
 * past them all, and the `VACUUM (ANALYZE)` that gives their space back to the table. The
 * deletes are the DELETE's own function (meal_export_delete_meal, one call a meal, each its
 * own decision, clock step and commit), called for a hundred users' meals in one statement:
 * a million single requests would take this machine a quarter of an hour, and it is the
 * prune, not the delete, that is measured.
 */
export async function pruneAfterDeleting(db: string, userIds: readonly string[]): Promise<PruneRun> {
  const sql = connectPostgres(db, { max: 1, onnotice: () => undefined, types: { bigint: postgres.BigInt } });
  let tombstones = 0;
  const made = performance.now();
  try {
    for (let at = 0; at < userIds.length; at += USERS_A_STATEMENT) {
      const users = userIds.slice(at, at + USERS_A_STATEMENT);
      const rows = await sql<{ user_id: string; id: string }[]>`
        SELECT user_id, id FROM meals WHERE user_id = ANY(${users}) AND NOT deleted`;
      const around = rows.map((row) => tombstoneAround(row.id));
      const [channel, eventIds, attempts] = commitInputs();
      const [done] = await sql<{ deleted: number }[]>`
        SELECT count(*) FILTER (WHERE outcome = 'deleted')::integer AS deleted FROM (
          SELECT meal_export_delete_meal(meal.user_id, meal.id, NULL, ${Date.now()}::bigint, meal.head, meal.tail,
            ${channel}::text, ${eventIds}::text[], ${attempts}::integer) AS outcome
          FROM unnest(${rows.map((row) => row.user_id)}::text[], ${rows.map((row) => row.id)}::text[],
            ${around.map(([head]) => head)}::text[], ${around.map(([, end]) => end)}::text[])
            AS meal(user_id, id, head, tail)) AS calls`;
      if (done?.deleted !== rows.length) throw new Error(`deleted ${done?.deleted} of ${rows.length} meals`);
      tombstones += rows.length;
    }
  } finally {
    await sql.end({ timeout: 1 });
  }
  const makeSeconds = seconds(made);
  const storage = await openStorage(db);
  let pruned: number;
  let pruneSeconds: number;
  try {
    // Past every tombstone's instant: a clock may run ahead of now by the meals it placed.
    const before = Date.now() + 3_600_000;
    const started = performance.now();
    pruned = await storage.writes.pruneTombstones(before);
    pruneSeconds = seconds(started);
  } finally {
    await storage.close();
  }
  const vacuum = connectPostgres(db, { max: 1, onnotice: () => undefined });
  const vacuumed = performance.now();
  try {
    await vacuum`VACUUM (ANALYZE) meals`;
  } finally {
    await vacuum.end({ timeout: 1 });
  }
  return { tombstones, makeSeconds, pruned, pruneSeconds, vacuumSeconds: seconds(vacuumed) };
}
