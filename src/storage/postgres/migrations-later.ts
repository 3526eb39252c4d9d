import type { Migration } from '../sqlite/migrations.js';
import { SAVE_BATCH_FUNCTION_SQL } from './postgres-batch-statement.js';
import { DECISION_FUNCTIONS_SQL } from './postgres-functions-decision.js';

/** POSTGRES_MIGRATIONS (migrations.ts) from 11 on: released migrations are never edited. */
export const LATER_POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 11,
    name: 'erasure: the clock floor, endpoints kept for their user.erased call, the vacuum due',
    // As SQLite's migration 11. A clock row is made by the write that first locks it, in SQL
    // (the single-write functions) or JS (postgres-clock-lock.ts): the column's default gives
    // every new row the floor, so each maker keeps its one INSERT; with no erasure ever, the
    // floor is null and a new row reads as before. `erasure_vacuum`: the tables an erasure
    // emptied rows of are vacuumed by a serving instance within minutes
    // (postgres-erasure-vacuum.ts).
    sql: `
      CREATE TABLE clock_floor (
        one smallint NOT NULL PRIMARY KEY CHECK (one = 1),
        at  bigint   NOT NULL
      );
      CREATE FUNCTION meal_export_clock_floor() RETURNS bigint
        LANGUAGE sql STABLE AS 'SELECT at FROM clock_floor';
      ALTER TABLE user_clocks ALTER COLUMN last_modified_at SET DEFAULT meal_export_clock_floor();
      ALTER TABLE webhook_endpoints ADD COLUMN erased_user_id text COLLATE "C";
      CREATE TABLE erasure_vacuum (
        one           smallint NOT NULL PRIMARY KEY CHECK (one = 1),
        erasures      bigint   NOT NULL,
        claimed_until bigint
      );
    `,
  },
  {
    version: 12,
    name: 'Connect: apps registered by the operator, the app a key was issued through',
    // As SQLite's migration 12.
    sql: `
      CREATE TABLE apps (
        id                text   COLLATE "C" NOT NULL PRIMARY KEY,
        name              text   NOT NULL,
        redirect_uris     text   NOT NULL,
        homepage_url      text,
        secret_digest     bytea  NOT NULL UNIQUE,
        created_at        bigint NOT NULL,
        secret_rotated_at bigint
      );
      ALTER TABLE api_keys ADD COLUMN app_id text COLLATE "C";
      CREATE INDEX api_keys_by_app ON api_keys (app_id, user_id) WHERE app_id IS NOT NULL;
    `,
  },
  {
    version: 13,
    name: 'Connect: authorization codes',
    // As SQLite's migration 13.
    sql: `
      CREATE TABLE oauth_codes (
        digest         bytea  NOT NULL PRIMARY KEY,
        app_id         text   COLLATE "C" NOT NULL,
        user_id        text   COLLATE "C" NOT NULL,
        redirect_uri   text   NOT NULL,
        code_challenge text   NOT NULL,
        scope          text   NOT NULL,
        created_at     bigint NOT NULL,
        expires_at     bigint NOT NULL,
        used_at        bigint,
        key_id         text   COLLATE "C",
        replayed_at    bigint
      );
      CREATE INDEX oauth_codes_by_expiry ON oauth_codes (expires_at);
      CREATE INDEX oauth_codes_by_user ON oauth_codes (user_id);
    `,
  },
  {
    version: 14,
    name: 'one decider: the save and delete rules and the clock lock as functions every write calls',
    // Functions, no table: the batches decided in TypeScript beside the single-meal functions'
    // SQL; now they and the single-meal functions call the same rules.
    sql: DECISION_FUNCTIONS_SQL,
  },
  {
    version: 15,
    name: 'the batch statement as a function, for the batches of a few records',
    // A function, no table: the statement's parse and plan kept per connection (its comment).
    sql: SAVE_BATCH_FUNCTION_SQL,
  },
];
