/**
 * One decider for every write of meals on PostgreSQL: the rules of a save and of a delete as
 * two SQL functions, and the user's clock lock as one, called by the single-meal functions
 * (replaced here, same signatures) and by the set-based batch statement
 * (postgres-batch-statement.ts) alike, where the batches used to decide in TypeScript beside
 * them. The rules are storage/save-step.ts's (stepOfSave, stepOfDelete: SQLite's decider),
 * with domain/source-version.ts's isRetry, isStaleWrite, recordsNewerVersion and
 * domain/meal-json.ts isStoredMeal; test/storage/write-paths.property.test.ts holds every
 * write path of both backends to the same outcomes.
 * The two step functions are plain SQL expressions, so that PostgreSQL inlines them into the
 * batch statement's plan instead of calling a function per row.
 * Part of migration 14 (migrations-later.ts): released migrations are never edited; a later
 * change of these functions is a new migration that replaces them.
 */
export const DECISION_FUNCTIONS_SQL = `
-- What a save of a meal does (stepOfSave), from the user's row it meets (met: one is there;
-- a row of another user is no concern of this: the callers answer foreign_id first):
-- unchanged (a retry, or the stored meal again), stale, recorded (unchanged, the newer version
-- recorded alone), updated or created.
CREATE FUNCTION meal_export_save_step(
  met boolean, met_deleted boolean, met_body text, stored bigint, content text, source_version bigint
) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE
    -- isStoredMeal: the live stored body starts with the content and is longer. In bytes, the
    -- same test: a body that starts with the content is longer in bytes exactly when it is in
    -- characters, and its first match of the content is at its start (strpos searches bytes;
    -- length() and starts_with() walk every character, four times the cost a row).
    WHEN met AND NOT met_deleted AND octet_length(met_body) > octet_length(content) AND strpos(met_body, content) = 1
    THEN CASE
      -- isRetry: the stored version with the stored meal is done already.
      WHEN source_version = stored THEN 'unchanged'
      -- isStaleWrite.
      WHEN source_version <= stored THEN 'stale'
      -- recordsNewerVersion.
      WHEN source_version IS NULL THEN 'unchanged'
      ELSE 'recorded'
    END
    -- isStaleWrite.
    WHEN source_version <= stored THEN 'stale'
    WHEN met THEN 'updated'
    ELSE 'created'
  END
$fn$;

-- What a delete does (stepOfDelete), from the row it meets: owned (the user's), foreign
-- (another user's), neither. not_found, foreign_id, already_deleted (a retry, or a tombstone
-- there), stale, recorded (already_deleted, the newer version recorded alone) or deleted.
CREATE FUNCTION meal_export_delete_step(
  owned boolean, foreign_row boolean, met_deleted boolean, stored bigint, source_version bigint
) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE
    WHEN foreign_row THEN CASE WHEN source_version IS NULL THEN 'not_found' ELSE 'foreign_id' END
    WHEN NOT owned AND source_version IS NULL THEN 'not_found'
    -- isRetry: a retry of the delete that made this tombstone.
    WHEN owned AND met_deleted AND source_version = stored THEN 'already_deleted'
    -- isStaleWrite.
    WHEN source_version <= stored THEN 'stale'
    -- recordsNewerVersion.
    WHEN owned AND met_deleted THEN CASE WHEN source_version IS NULL THEN 'already_deleted' ELSE 'recorded' END
    ELSE 'deleted'
  END
$fn$;

-- The user's clock row locked (postgres-clock-lock.ts), serialising the user's writes: held
-- says whether there is one; with make, a missing one is made first (its last_modified_at the
-- clock floor, migration 11's default). Every write takes it before it reads the meals it
-- writes, in a statement of its own or, in the single-meal functions, before their reads.
CREATE FUNCTION meal_export_lock_clock(
  user_id text, make boolean,
  OUT held boolean, OUT clock_at bigint, OUT live_meals bigint, OUT digest bytea
)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
  SELECT clock.last_modified_at, clock.live_count, clock.digest_sum INTO clock_at, live_meals, digest
  FROM user_clocks AS clock WHERE clock.user_id = meal_export_lock_clock.user_id FOR UPDATE;
  held := FOUND;
  IF held OR NOT make THEN
    RETURN;
  END IF;
  INSERT INTO user_clocks (user_id) VALUES (meal_export_lock_clock.user_id) ON CONFLICT (user_id) DO NOTHING;
  SELECT clock.last_modified_at, clock.live_count, clock.digest_sum INTO clock_at, live_meals, digest
  FROM user_clocks AS clock WHERE clock.user_id = meal_export_lock_clock.user_id FOR UPDATE;
  held := FOUND;
END
$fn$;

-- MealWrites.saveMeal in one statement (postgres-meal-save.ts), as migration 10 made it, now
-- deciding by meal_export_save_step and locking by meal_export_lock_clock. A new user's clock
-- row is made only once the id is known not to be another user's.
CREATE OR REPLACE FUNCTION meal_export_save_meal(
  user_id text, id text, content text, body_end text, source_version bigint, now_at bigint,
  channel text, event_ids text[], queue_attempts integer,
  OUT outcome text, OUT meal_modified_at bigint
)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  held boolean;
  owner text;
  clock_at bigint;
  live_meals bigint;
  digest bytea;
  met boolean;
  met_at bigint;
  met_deleted boolean;
  met_body text;
  stored bigint;
  step text;
  new_at bigint;
  new_instant text;
  delta numeric;
BEGIN
  SELECT lock.held, lock.clock_at, lock.live_meals, lock.digest INTO held, clock_at, live_meals, digest
  FROM meal_export_lock_clock(meal_export_save_meal.user_id, false) AS lock;
  IF NOT held THEN
    IF EXISTS (SELECT FROM meals AS meal
               WHERE meal.id = meal_export_save_meal.id AND meal.user_id <> meal_export_save_meal.user_id) THEN
      outcome := 'foreign_id';
      RETURN;
    END IF;
    SELECT lock.clock_at, lock.live_meals, lock.digest INTO clock_at, live_meals, digest
    FROM meal_export_lock_clock(meal_export_save_meal.user_id, true) AS lock;
  END IF;
  SELECT meal.user_id, meal.modified_at, meal.deleted, meal.body, meal.source_version
  INTO owner, met_at, met_deleted, met_body, stored
  FROM meals AS meal WHERE meal.id = meal_export_save_meal.id;
  met := FOUND;
  IF met AND owner <> meal_export_save_meal.user_id THEN
    outcome := 'foreign_id';
    RETURN;
  END IF;
  step := meal_export_save_step(met, met_deleted, met_body, stored, content, source_version);
  IF step IN ('unchanged', 'stale', 'recorded') THEN
    IF step = 'recorded' THEN
      UPDATE meals AS meal SET source_version = meal_export_save_meal.source_version
      WHERE meal.id = meal_export_save_meal.id AND meal.user_id = meal_export_save_meal.user_id;
    END IF;
    outcome := CASE WHEN step = 'stale' THEN 'stale' ELSE 'unchanged' END;
    meal_modified_at := met_at;
    RETURN;
  END IF;
  -- nextModifiedAt; encodeMealAt; keptSourceVersion.
  new_at := CASE WHEN clock_at IS NULL THEN now_at ELSE greatest(now_at, clock_at + 1) END;
  new_instant := meal_export_instant(new_at);
  IF met THEN
    UPDATE meals AS meal SET modified_at = new_at, deleted = false, body = content || new_instant || body_end,
      source_version = coalesce(meal_export_save_meal.source_version, stored)
    WHERE meal.id = meal_export_save_meal.id AND meal.user_id = meal_export_save_meal.user_id;
  ELSE
    INSERT INTO meals (user_id, modified_at, id, deleted, body, source_version)
    VALUES (meal_export_save_meal.user_id, new_at, meal_export_save_meal.id, false, content || new_instant || body_end,
      meal_export_save_meal.source_version);
  END IF;
  IF live_meals IS NULL OR digest IS NULL THEN
    live_meals := NULL;
    digest := NULL;
  ELSE
    delta := meal_export_digest_term(meal_export_save_meal.id, new_instant);
    live_meals := live_meals + 1;
    IF met AND NOT met_deleted THEN
      delta := delta - meal_export_digest_term(meal_export_save_meal.id, meal_export_instant(met_at));
      live_meals := live_meals - 1;
    END IF;
    digest := meal_export_digest_moved(digest, delta);
  END IF;
  PERFORM meal_export_commit_change(meal_export_save_meal.user_id, new_at, new_at, now_at, live_meals, digest,
    channel, event_ids, queue_attempts);
  outcome := CASE WHEN met THEN 'updated' ELSE 'created' END;
  meal_modified_at := new_at;
END
$fn$;

-- MealWrites.deleteMeal in one statement (postgres-meal-delete.ts), as migration 10 made it,
-- now deciding by meal_export_delete_step and locking by meal_export_lock_clock. A new user's
-- clock row is made only when the delete will write: a tombstone for an id no user has.
CREATE OR REPLACE FUNCTION meal_export_delete_meal(
  user_id text, id text, source_version bigint, now_at bigint, tombstone_head text, tombstone_end text,
  channel text, event_ids text[], queue_attempts integer
) RETURNS text
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  held boolean;
  owner text;
  clock_at bigint;
  live_meals bigint;
  digest bytea;
  owned boolean;
  met_at bigint;
  met_deleted boolean;
  stored bigint;
  step text;
  new_at bigint;
BEGIN
  SELECT lock.held, lock.clock_at, lock.live_meals, lock.digest INTO held, clock_at, live_meals, digest
  FROM meal_export_lock_clock(meal_export_delete_meal.user_id, false) AS lock;
  SELECT meal.user_id, meal.modified_at, meal.deleted, meal.source_version INTO owner, met_at, met_deleted, stored
  FROM meals AS meal WHERE meal.id = meal_export_delete_meal.id;
  owned := FOUND AND owner = meal_export_delete_meal.user_id;
  step := meal_export_delete_step(owned, FOUND AND NOT owned, met_deleted, stored, source_version);
  IF NOT held AND step = 'deleted' THEN
    -- Only an id no user had gets here (a user with meals has a clock row): the row is made,
    -- then the id read again under the lock, as another user may have taken it meanwhile.
    SELECT lock.clock_at, lock.live_meals, lock.digest INTO clock_at, live_meals, digest
    FROM meal_export_lock_clock(meal_export_delete_meal.user_id, true) AS lock;
    SELECT meal.user_id, meal.modified_at, meal.deleted, meal.source_version INTO owner, met_at, met_deleted, stored
    FROM meals AS meal WHERE meal.id = meal_export_delete_meal.id;
    owned := FOUND AND owner = meal_export_delete_meal.user_id;
    step := meal_export_delete_step(owned, FOUND AND NOT owned, met_deleted, stored, source_version);
  END IF;
  IF step = 'recorded' THEN
    UPDATE meals AS meal SET source_version = meal_export_delete_meal.source_version
    WHERE meal.id = meal_export_delete_meal.id AND meal.user_id = meal_export_delete_meal.user_id;
    RETURN 'already_deleted';
  END IF;
  IF step <> 'deleted' THEN
    RETURN step;
  END IF;
  -- nextModifiedAt; encodeTombstone; keptSourceVersion.
  new_at := CASE WHEN clock_at IS NULL THEN now_at ELSE greatest(now_at, clock_at + 1) END;
  IF owned THEN
    UPDATE meals AS meal SET modified_at = new_at, deleted = true,
      body = tombstone_head || meal_export_instant(new_at) || tombstone_end,
      source_version = coalesce(meal_export_delete_meal.source_version, stored)
    WHERE meal.id = meal_export_delete_meal.id AND meal.user_id = meal_export_delete_meal.user_id;
    IF live_meals IS NOT NULL AND digest IS NOT NULL THEN
      live_meals := live_meals - 1;
      digest := meal_export_digest_moved(digest,
        -meal_export_digest_term(meal_export_delete_meal.id, meal_export_instant(met_at)));
    END IF;
  ELSE
    INSERT INTO meals (user_id, modified_at, id, deleted, body, source_version)
    VALUES (meal_export_delete_meal.user_id, new_at, meal_export_delete_meal.id, true,
      tombstone_head || meal_export_instant(new_at) || tombstone_end, meal_export_delete_meal.source_version);
  END IF;
  IF live_meals IS NULL OR digest IS NULL THEN
    live_meals := NULL;
    digest := NULL;
  END IF;
  PERFORM meal_export_commit_change(meal_export_delete_meal.user_id, new_at, new_at, now_at, live_meals, digest,
    channel, event_ids, queue_attempts);
  RETURN 'deleted';
END
$fn$;
`;
