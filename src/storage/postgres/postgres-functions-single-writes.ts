/**
 * A single-meal save and a single delete in one statement each, one round trip, where the JS
 * path takes about ten (postgres-meal-save.ts, postgres-meal-delete.ts call them). They do what
 * the JS path does, under the same rules, and say where the JS twin of each rule lives; the
 * shared storage suites hold the two to the same answers. What JS makes stays in JS and comes
 * as arguments: the meal's encoded content and the text around a tombstone's instant
 * (domain/meal-json.ts), the event ids (domain/webhook-ids.ts), the notification channel
 * (postgres-feed-signals.ts), the tries of the webhook queueing (postgres-commit.ts). Tables
 * and functions are named without a schema: they resolve in the caller's search_path, the
 * store's schema, as every statement of the store does. Parameters are named as the columns
 * they fill (`#variable_conflict use_column`, as in postgres-functions-commit.ts).
 * Part of migration 10 (migrations.ts): released migrations are never edited. Migration 14
 * (postgres-functions-decision.ts) replaced both functions, deciding by the one decider every
 * write calls; the text below is migration 10's as it shipped, its comments included.
 */
export const SINGLE_WRITE_FUNCTIONS_SQL = `
-- MealWrites.saveMeal in one statement (postgres-meal-save.ts), as the batch path
-- (postgres-meal-writes.ts writeBatch) does it for one meal:
-- - the user's clock row is locked (postgres-clock-lock.ts lockClock), then the meal read under
--   the lock, whoever holds it: what it says holds until commit. An id another user holds is
--   foreign_id, nothing written. A new user's clock row is made first, unless the id is
--   another user's: then none is left behind, as the batch path rolls back the row it made
--   (should another user take the id between the two, the new row stays, empty: it reads as
--   no row, no clock and an empty digest). An id another user's write took meanwhile fails
--   the insert (unique), and the caller runs the call again;
-- - stale / unchanged (with a newer version recorded alone) / created / updated decided as
--   storage/save-step.ts stepOfSave does, with domain/source-version.ts's rules (isRetry,
--   isStaleWrite, recordsNewerVersion, keptSourceVersion) and domain/meal-json.ts isStoredMeal
--   (the stored body starts with the content and is longer);
-- - the new modifiedAt is domain/change-clock.ts nextModifiedAt, the body
--   domain/meal-json.ts encodeMealAt (content, instant, body_end);
-- - the digest moves by the meal's terms as postgres-meal-writes.ts moves it, and the commit
--   step (postgres-functions-commit.ts) ends the change.
-- Answers the outcome and the meal's modifiedAt after the call (the stored one when unchanged
-- or stale), or foreign_id and null.
CREATE FUNCTION meal_export_save_meal(
  user_id text, id text, content text, body_end text, source_version bigint, now_at bigint,
  channel text, event_ids text[], queue_attempts integer,
  OUT outcome text, OUT meal_modified_at bigint
)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  owner text;
  clock_at bigint;
  live_meals bigint;
  digest bytea;
  met boolean;
  met_at bigint;
  met_deleted boolean;
  met_body text;
  stored bigint;
  equal boolean;
  new_at bigint;
  new_instant text;
  delta numeric;
BEGIN
  SELECT clock.last_modified_at, clock.live_count, clock.digest_sum INTO clock_at, live_meals, digest
  FROM user_clocks AS clock WHERE clock.user_id = meal_export_save_meal.user_id FOR UPDATE;
  IF NOT FOUND THEN
    IF EXISTS (SELECT FROM meals AS meal
               WHERE meal.id = meal_export_save_meal.id AND meal.user_id <> meal_export_save_meal.user_id) THEN
      outcome := 'foreign_id';
      RETURN;
    END IF;
    INSERT INTO user_clocks (user_id) VALUES (meal_export_save_meal.user_id) ON CONFLICT (user_id) DO NOTHING;
    SELECT clock.last_modified_at, clock.live_count, clock.digest_sum INTO clock_at, live_meals, digest
    FROM user_clocks AS clock WHERE clock.user_id = meal_export_save_meal.user_id FOR UPDATE;
  END IF;
  SELECT meal.user_id, meal.modified_at, meal.deleted, meal.body, meal.source_version
  INTO owner, met_at, met_deleted, met_body, stored
  FROM meals AS meal WHERE meal.id = meal_export_save_meal.id;
  met := FOUND;
  IF met AND owner <> meal_export_save_meal.user_id THEN
    outcome := 'foreign_id';
    RETURN;
  END IF;
  -- isStoredMeal.
  equal := met AND NOT met_deleted AND length(met_body) > length(content) AND starts_with(met_body, content);
  -- isRetry: the stored version with the stored meal is done already, not overtaken.
  IF equal AND source_version IS NOT NULL AND source_version = stored THEN
    outcome := 'unchanged';
    meal_modified_at := met_at;
    RETURN;
  END IF;
  -- isStaleWrite.
  IF source_version IS NOT NULL AND stored IS NOT NULL AND source_version <= stored THEN
    outcome := 'stale';
    meal_modified_at := met_at;
    RETURN;
  END IF;
  IF equal THEN
    -- recordsNewerVersion: the version alone, no change.
    IF source_version IS NOT NULL AND (stored IS NULL OR source_version > stored) THEN
      UPDATE meals AS meal SET source_version = meal_export_save_meal.source_version
      WHERE meal.id = meal_export_save_meal.id AND meal.user_id = meal_export_save_meal.user_id;
    END IF;
    outcome := 'unchanged';
    meal_modified_at := met_at;
    RETURN;
  END IF;
  -- nextModifiedAt; encodeMealAt.
  new_at := CASE WHEN clock_at IS NULL THEN now_at ELSE greatest(now_at, clock_at + 1) END;
  new_instant := meal_export_instant(new_at);
  IF met THEN
    -- keptSourceVersion: the new version, else the stored one.
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

-- MealWrites.deleteMeal in one statement (postgres-meal-delete.ts), decided as
-- storage/save-step.ts stepOfDelete decides it:
-- - under the user's clock lock, the meal read, whoever holds it: an id that is not the user's
--   is not_found, or foreign_id when a version came, unless an id no user has gets a tombstone
--   (a version came). A new user's clock row is made first unless the answer is one of those
--   two, as for a save;
-- - a tombstone already there is already_deleted, recording a newer version alone
--   (recordsNewerVersion); a version not newer than the stored one is stale (isRetry and
--   isStaleWrite, domain/source-version.ts);
-- - else the meal's row becomes a tombstone in place, keeping its version unless a newer one
--   came (keptSourceVersion), at nextModifiedAt (domain/change-clock.ts), its body the
--   tombstone_head, the instant and the tombstone_end (domain/meal-json.ts tombstoneAround),
--   its term leaving the digest; an id no user has gets a new tombstone row (another user's
--   insert meanwhile fails it, unique, and the caller runs the call again), the digest as it
--   was; and the commit step (postgres-functions-commit.ts) ends the change.
CREATE FUNCTION meal_export_delete_meal(
  user_id text, id text, source_version bigint, now_at bigint, tombstone_head text, tombstone_end text,
  channel text, event_ids text[], queue_attempts integer
) RETURNS text
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  owner text;
  clock_at bigint;
  live_meals bigint;
  digest bytea;
  met boolean;
  met_at bigint;
  met_deleted boolean;
  stored bigint;
  new_at bigint;
BEGIN
  SELECT clock.last_modified_at, clock.live_count, clock.digest_sum INTO clock_at, live_meals, digest
  FROM user_clocks AS clock WHERE clock.user_id = meal_export_delete_meal.user_id FOR UPDATE;
  IF NOT FOUND THEN
    SELECT meal.user_id INTO owner FROM meals AS meal WHERE meal.id = meal_export_delete_meal.id;
    IF FOUND AND owner <> meal_export_delete_meal.user_id THEN
      RETURN CASE WHEN source_version IS NULL THEN 'not_found' ELSE 'foreign_id' END;
    END IF;
    IF NOT FOUND AND source_version IS NULL THEN
      RETURN 'not_found';
    END IF;
    INSERT INTO user_clocks (user_id) VALUES (meal_export_delete_meal.user_id) ON CONFLICT (user_id) DO NOTHING;
    SELECT clock.last_modified_at, clock.live_count, clock.digest_sum INTO clock_at, live_meals, digest
    FROM user_clocks AS clock WHERE clock.user_id = meal_export_delete_meal.user_id FOR UPDATE;
  END IF;
  SELECT meal.user_id, meal.modified_at, meal.deleted, meal.source_version INTO owner, met_at, met_deleted, stored
  FROM meals AS meal WHERE meal.id = meal_export_delete_meal.id;
  met := FOUND AND owner = meal_export_delete_meal.user_id;
  IF FOUND AND NOT met THEN
    RETURN CASE WHEN source_version IS NULL THEN 'not_found' ELSE 'foreign_id' END;
  END IF;
  IF NOT met AND source_version IS NULL THEN
    RETURN 'not_found';
  END IF;
  -- isRetry: a retry of the delete that made this tombstone.
  IF met AND met_deleted AND source_version IS NOT NULL AND source_version = stored THEN
    RETURN 'already_deleted';
  END IF;
  -- isStaleWrite.
  IF source_version IS NOT NULL AND stored IS NOT NULL AND source_version <= stored THEN
    RETURN 'stale';
  END IF;
  IF met AND met_deleted THEN
    -- recordsNewerVersion: the version alone, no change.
    IF source_version IS NOT NULL AND (stored IS NULL OR source_version > stored) THEN
      UPDATE meals AS meal SET source_version = meal_export_delete_meal.source_version
      WHERE meal.id = meal_export_delete_meal.id AND meal.user_id = meal_export_delete_meal.user_id;
    END IF;
    RETURN 'already_deleted';
  END IF;
  -- nextModifiedAt; encodeTombstone.
  new_at := CASE WHEN clock_at IS NULL THEN now_at ELSE greatest(now_at, clock_at + 1) END;
  IF met THEN
    -- keptSourceVersion: the new version, else the stored one.
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
