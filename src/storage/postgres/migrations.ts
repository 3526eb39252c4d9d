import type { Migration } from '../sqlite/migrations.js';

/**
 * The PostgreSQL schema, as numbered migrations applied in order and never edited once
 * released (add a new one instead). The same tables as SQLite (sqlite/migrations.ts), so the
 * same data gives byte-identical pages on both:
 * - ids and user ids are COLLATE "C": the feed's order is (modifiedAt, id) by UTF-8 bytes,
 *   which "C" compares in a UTF-8 database;
 * - each meal row holds its JSON text as the API sends it;
 * - `user_clocks` is the per-user row whose lock serialises that user's writes
 *   (postgres-meals.ts), with the pruned-tombstone watermark beside the clock.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE meals (
        user_id     text COLLATE "C" NOT NULL,
        modified_at bigint  NOT NULL,
        id          text COLLATE "C" NOT NULL,
        deleted     boolean NOT NULL DEFAULT false,
        body        text    NOT NULL,
        PRIMARY KEY (user_id, modified_at, id)
      );
      -- ids are unique across all users: the import looks a meal up by id alone.
      CREATE UNIQUE INDEX meals_by_id ON meals (id);
      -- tombstone pruning reads only tombstones.
      CREATE INDEX meals_tombstones ON meals (modified_at) WHERE deleted;

      -- One row per user that ever wrote: its lock serialises the user's writes, and the clock
      -- outlives pruned tombstones, so modifiedAt never goes back. last_modified_at is null
      -- until the first write commits.
      CREATE TABLE user_clocks (
        user_id            text COLLATE "C" NOT NULL PRIMARY KEY,
        last_modified_at   bigint,
        pruned_modified_at bigint,
        pruned_id          text COLLATE "C"
      );

      CREATE TABLE api_keys (
        id           text   NOT NULL PRIMARY KEY,
        user_id      text   COLLATE "C" NOT NULL,
        name         text   NOT NULL,
        prefix       text   NOT NULL,
        digest       bytea  NOT NULL UNIQUE,
        created_at   bigint NOT NULL,
        expires_at   bigint,
        last_used_at bigint,
        revoked_at   bigint
      );
      CREATE INDEX api_keys_by_user ON api_keys (user_id);

      CREATE TABLE settings (
        name  text  NOT NULL PRIMARY KEY,
        value bytea NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'app page: key requests per day, login tokens, sessions',
    sql: `
      -- Accepted requests per key and UTC day: the app page's quota use and chart.
      CREATE TABLE key_daily_requests (
        key_id   text    NOT NULL,
        day      integer NOT NULL,
        requests integer NOT NULL,
        PRIMARY KEY (key_id, day)
      );
      CREATE INDEX key_daily_requests_by_day ON key_daily_requests (day);

      -- Digests only: the raw token and session id live in the link and the cookie.
      CREATE TABLE login_tokens (
        digest     bytea  NOT NULL PRIMARY KEY,
        user_id    text   COLLATE "C" NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX login_tokens_by_expiry ON login_tokens (expires_at);

      CREATE TABLE app_sessions (
        digest     bytea  NOT NULL PRIMARY KEY,
        user_id    text   COLLATE "C" NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX app_sessions_by_expiry ON app_sessions (expires_at);
    `,
  },
  {
    version: 3,
    name: 'last accepted request per key and day',
    // Where the interval between accepted requests resumes after a restart (CONTRACT.md
    // section 4). Beside the day's count, written by the same flush: after a crash the two
    // lose the same last seconds. api_keys.last_used_at is no substitute: a 429 moves it.
    // Null on the rows counted before.
    sql: `
      ALTER TABLE key_daily_requests ADD COLUMN last_accepted_at bigint;
    `,
  },
];
