/**
 * The one set-based statement that writes a batch of saves on PostgreSQL, for one user
 * (MealWrites.upsertMeals and importMeals) or many (the import of every user's history): each
 * record decided by meal_export_save_step, the one decider the single-meal save calls too
 * (postgres-functions-decision.ts), the changed ones placed on their user's clock in input
 * order (nextModifiedAt: the clock's next value, then one more each), written, each user's
 * digest moved by the meals' terms, and each user's change ended by the commit step
 * (meal_export_commit_change), once per user and statement.
 *
 * Its input is the relation `src(user_id, id, content, source_version, n)`, the batch's
 * columns unnested, `n` counting from 1 (a record's `ord`, its place in the whole write, is
 * `$7 + n - 1`) (a staging table filled by COPY was measured slower: bench/RESULTS.md). The
 * ids of one statement are distinct (postgres-batch-write.ts statementEnds cuts a batch where an
 * id comes again), so no record meets another of the same statement: a repeated id meets what
 * the earlier one wrote, in the table, as on SQLite. Every user of the input has its clock row locked by an earlier
 * statement of the transaction (meal_export_lock_clock): this statement's snapshot, taken
 * after, sees every write the lock waited for.
 *
 * Answers the counts, the first record (by `ord`) whose id another user holds, and the first
 * whose write found its id taken by another user meanwhile (the insert's conflict, guarded by
 * owner, writes nothing): either rolls the caller's transaction back as a foreign id.
 */
function batchStatement(source: string): string {
  return `
WITH met AS MATERIALIZED (
  -- A record's content goes on only when it is written (OFFSET 0 keeps the decider from being
  -- inlined twice): an unchanged record's would be copied into the tuple store for nothing.
  SELECT ord, user_id, id, CASE WHEN step IN ('created', 'updated') THEN content END AS content, source_version, owner,
    met_at, met_live, stored, step
  FROM (
    SELECT $7::integer + src.n::integer - 1 AS ord, src.user_id, src.id, src.content, src.source_version,
      meal.user_id AS owner, meal.modified_at AS met_at, meal.id IS NOT NULL AND NOT meal.deleted AS met_live,
      meal.source_version AS stored,
      meal_export_save_step(meal.id IS NOT NULL, meal.deleted, meal.body, meal.source_version, src.content,
        src.source_version) AS step
    FROM ${source} LEFT JOIN meals AS meal ON meal.id = src.id
    OFFSET 0
  ) AS decided
),
users AS MATERIALIZED (
  SELECT clock.user_id, clock.last_modified_at AS clock_at, clock.live_count, clock.digest_sum,
    row_number() OVER (ORDER BY clock.user_id) AS n
  FROM user_clocks AS clock WHERE clock.user_id IN (SELECT DISTINCT user_id FROM met)
),
changed AS MATERIALIZED (
  SELECT met.*, CASE WHEN users.clock_at IS NULL THEN $1::bigint ELSE greatest($1::bigint, users.clock_at + 1) END
      + row_number() OVER (PARTITION BY met.user_id ORDER BY met.ord) - 1 AS new_at
  FROM met JOIN users ON users.user_id = met.user_id
  WHERE met.step IN ('created', 'updated') AND (met.owner IS NULL OR met.owner = met.user_id)
),
placed AS MATERIALIZED (
  SELECT changed.*, meal_export_instant(new_at) AS instant FROM changed
),
written AS (
  INSERT INTO meals AS meal (user_id, modified_at, id, deleted, body, source_version)
  SELECT user_id, new_at, id, false, content || instant || $2::text, coalesce(source_version, stored) FROM placed
  ON CONFLICT (id) DO UPDATE SET modified_at = excluded.modified_at, deleted = false, body = excluded.body,
    source_version = excluded.source_version
  WHERE meal.user_id = excluded.user_id
  RETURNING meal.id
),
recorded AS (
  UPDATE meals AS meal SET source_version = met.source_version FROM met
  WHERE met.step = 'recorded' AND met.owner = met.user_id AND meal.id = met.id
  RETURNING meal.id
),
moved AS (
  SELECT user_id, min(new_at) AS first_at, max(new_at) AS last_at,
    count(*) - count(*) FILTER (WHERE met_live) AS live_delta,
    sum(meal_export_digest_term(id, instant))
      - coalesce(sum(meal_export_digest_term(id, meal_export_instant(met_at))) FILTER (WHERE met_live), 0) AS delta
  FROM placed GROUP BY user_id
),
committed AS (
  SELECT meal_export_commit_change(moved.user_id, moved.first_at, moved.last_at, $1::bigint,
      CASE WHEN users.live_count IS NULL OR users.digest_sum IS NULL THEN NULL
        ELSE users.live_count + moved.live_delta END,
      CASE WHEN users.live_count IS NULL OR users.digest_sum IS NULL THEN NULL
        ELSE meal_export_digest_moved(users.digest_sum, moved.delta) END,
      $3::text, ($4::text[])[(users.n - 1) * $5::integer + 1 : users.n * $5::integer], $6::integer)
  FROM moved JOIN users ON users.user_id = moved.user_id
)
SELECT counted.*,
  (SELECT min(ord) FROM placed WHERE id NOT IN (SELECT id FROM written))::integer AS taken_ord,
  (SELECT count(*) FROM committed)::integer AS users_changed,
  (SELECT count(*) FROM recorded)::integer AS recorded
FROM (
  -- One pass over the records for the counts (a record another user holds counts as none).
  SELECT count(*) FILTER (WHERE step = 'created')::integer AS created,
    count(*) FILTER (WHERE step = 'updated' AND owner = user_id)::integer AS updated,
    count(*) FILTER (WHERE step IN ('unchanged', 'recorded') AND owner = user_id)::integer AS unchanged,
    count(*) FILTER (WHERE step = 'stale' AND owner = user_id)::integer AS stale,
    min(ord) FILTER (WHERE owner <> user_id)::integer AS foreign_ord
  FROM met
) AS counted`;
}

/** The statement's answer. */
export interface BatchStatementRow {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly stale: number;
  /** The first record, by `ord`, whose id another user holds; null if none. */
  readonly foreign_ord: number | null;
  /** The first record whose id another user's write took meanwhile; null if none. */
  readonly taken_ord: number | null;
}

/**
 * The statement over a batch sent with it. Its parameters: now, the body's end
 * (domain/meal-json.ts MEAL_JSON_END), batchCommitInputs (postgres-commit.ts), then the columns
 * of `src`: the first record's `ord`, then the user ids, the ids and the contents each as one
 * text joined by CONTENT_SEPARATOR (postgres.js escapes each element of a text array: for a
 * batch of meals' JSON, five times the cost of the statement's own reads), and the versions.
 */
export const ARRAY_BATCH_STATEMENT = batchStatement(
  `unnest(string_to_array($8::text, E'\\x1e'), string_to_array($9::text, E'\\x1e'),
       string_to_array($10::text, E'\\x1e'), $11::bigint[]) WITH ORDINALITY
     AS src(user_id, id, content, source_version, n)`,
);

/**
 * The same statement inside a function (migration 15), for the batches of a few records
 * (postgres-batch-write.ts SMALL_BATCH_RECORDS): a statement sent as text, unnamed
 * (postgres-signal-route.ts), is parsed, its SQL functions inlined and planned at every call,
 * about 1 ms of a batch of 10's 2.5 (bench/write-paths.ts); PL/pgSQL keeps the statement parsed
 * and, with the generic plan forced, planned once per connection. Larger batches keep the
 * statement as text: its custom plan, the arrays split once at planning, measured twice as fast
 * on 2 000 unchanged records. The generic plan is made once, maybe while the meals are few, and
 * kept as they grow: without seq scans, it looks records up by index whatever their number
 * then (a plan made on an empty table, kept over 100 000 meals, made an upsert of 10 five times
 * slower). Its text is the statement's when the migration shipped: a change
 * of ARRAY_BATCH_STATEMENT is a new migration replacing this function
 * (test/storage/migrations-frozen.test.ts holds it).
 */
export const SAVE_BATCH_FUNCTION_SQL = `
CREATE FUNCTION meal_export_save_batch(
  now_at bigint, body_end text, channel text, event_ids text[], per_user integer, queue_attempts integer,
  first_ord integer, user_ids text, ids text, contents text, source_versions bigint[],
  OUT created integer, OUT updated integer, OUT unchanged integer, OUT stale integer,
  OUT foreign_ord integer, OUT taken_ord integer, OUT users_changed integer, OUT recorded integer
) RETURNS SETOF record
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY ${ARRAY_BATCH_STATEMENT};
END
$fn$;
`;

/** The function's call: the same parameters as ARRAY_BATCH_STATEMENT, the same answer. */
export const FUNCTION_BATCH_STATEMENT = `SELECT * FROM meal_export_save_batch($1::bigint, $2::text, $3::text,
  $4::text[], $5::integer, $6::integer, $7::integer, $8::text, $9::text, $10::text, $11::bigint[])`;

/**
 * Between the texts of a batch sent as one: a control character, which JSON text never holds
 * raw (domain/meal-json.ts escapes it inside strings), nor a meal id or a user id
 * (domain/meal-id.ts, domain/user-id.ts refuse control characters).
 */
export const CONTENT_SEPARATOR = '\x1e';
