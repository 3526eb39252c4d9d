import type { Migration } from '../sqlite/migrations.js';
import { COMMIT_FUNCTION_SQL } from './postgres-functions-commit.js';
import { DIGEST_FUNCTIONS_SQL } from './postgres-functions-digest.js';
import { SINGLE_WRITE_FUNCTIONS_SQL } from './postgres-functions-single-writes.js';
import { LATER_POSTGRES_MIGRATIONS } from './migrations-later.js';

/**
 * The PostgreSQL schema, as numbered migrations applied in order and never edited once released.
 * The same tables as SQLite (sqlite/migrations.ts), so the same data gives byte-identical pages on both:
 * - ids and user ids are COLLATE "C": the feed's order is (modifiedAt, id) by UTF-8 bytes,
 *   which "C" compares in a UTF-8 database;
 * - each meal row holds its JSON text as the API sends it;
 * - `user_clocks` is the per-user row whose lock serialises that user's writes
 *   (postgres-meal-writes.ts), with the pruned-tombstone watermark beside the clock.
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
    // Where the interval between accepted requests resumes after a restart (docs/api.md#limits).
    // Beside the day's count, written by the same flush: after a crash the two
    // lose the same last seconds. api_keys.last_used_at is no substitute: a 429 moves it.
    // Null on the rows counted before.
    sql: `
      ALTER TABLE key_daily_requests ADD COLUMN last_accepted_at bigint;
    `,
  },
  {
    version: 4,
    name: 'webhooks: endpoints, pending events, attempts',
    // As SQLite's migration 4. The foreign keys make a write for an endpoint deleted meanwhile
    // fail or wait rather than leave rows no one reads; deleting an endpoint takes the rest.
    sql: `
      CREATE TABLE webhook_endpoints (
        id                         text   COLLATE "C" NOT NULL PRIMARY KEY,
        user_id                    text   COLLATE "C" NOT NULL,
        url                        text   NOT NULL,
        name                       text   NOT NULL,
        secret                     text   NOT NULL,
        previous_secret            text,
        previous_secret_expires_at bigint,
        status                     text   NOT NULL CHECK (status IN ('enabled', 'disabled')),
        created_at                 bigint NOT NULL,
        last_attempt_at            bigint,
        last_status                integer
      );
      CREATE INDEX webhook_endpoints_by_user ON webhook_endpoints (user_id, created_at);

      CREATE TABLE webhook_events (
        endpoint_id     text    COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        seq             integer NOT NULL,
        id              text    NOT NULL,
        type            text    NOT NULL,
        from_at         bigint,
        through_at      bigint,
        attempts        integer NOT NULL,
        next_attempt_at bigint  NOT NULL,
        leased_until    bigint,
        claimed_at      bigint,
        created_at      bigint  NOT NULL,
        PRIMARY KEY (endpoint_id, seq)
      );
      CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at);

      CREATE TABLE webhook_attempts (
        n           bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        endpoint_id text    COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        at          bigint  NOT NULL,
        event_id    text    NOT NULL,
        status      integer,
        error       text,
        ms          integer NOT NULL
      );
      CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, at, n);
    `,
  },
  {
    version: 5,
    name: 'digest of the live meals on the user clocks',
    // Each user's live meals as a count and a 128-bit sum (domain/meals-digest.ts), moved by
    // every write's commit step (postgres-commit.ts). Null on the rows written before, until
    // the backfill (postgres-digest-backfill.ts) fills them; a new row starts empty.
    sql: `
      ALTER TABLE user_clocks ADD COLUMN live_count bigint, ADD COLUMN digest_sum bytea;
      ALTER TABLE user_clocks ALTER COLUMN live_count SET DEFAULT 0,
        ALTER COLUMN digest_sum SET DEFAULT '\\x00000000000000000000000000000000';
      -- The rows left to fill: empty once the backfill is done, so asking costs one probe.
      CREATE INDEX user_clocks_digest_pending ON user_clocks (user_id) WHERE live_count IS NULL;
    `,
  },
  {
    version: 6,
    name: 'source versions of meals, service tokens',
    // The newest sourceVersion the app's back end gave each meal, live or tombstone
    // (domain/source-version.ts), beside the body, never in it. Service tokens as SHA-256
    // digests (docs/host-api.md#service-tokens).
    sql: `
      ALTER TABLE meals ADD COLUMN source_version bigint;

      CREATE TABLE service_tokens (
        id           text   COLLATE "C" NOT NULL PRIMARY KEY,
        name         text   NOT NULL,
        prefix       text   NOT NULL,
        digest       bytea  NOT NULL UNIQUE,
        created_at   bigint NOT NULL,
        last_used_at bigint,
        revoked_at   bigint
      );
    `,
  },
  {
    version: 7,
    name: 'change sequence of the user clocks',
    // What the change poll reads where LISTEN does not reach PostgreSQL (behind a transaction
    // pooler without --direct-db: postgres-change-poll.ts): every commit step takes the next
    // value with the user's clock, and "which users changed since N" is one indexed range
    // read. A sequence, not max + 1 as on SQLite: writers of different users commit in
    // parallel here. Null on the rows written before.
    sql: `
      CREATE SEQUENCE user_clock_changes;
      ALTER TABLE user_clocks ADD COLUMN change_seq bigint;
      ALTER SEQUENCE user_clock_changes OWNED BY user_clocks.change_seq;
      CREATE INDEX user_clocks_by_change ON user_clocks (change_seq);
    `,
  },
  {
    version: 8,
    name: "app page: a form's result for the next page",
    // As SQLite's migration 9: sealed, one per session, taken once (web/flash.ts).
    sql: `
      CREATE TABLE app_session_flashes (
        session_digest bytea  NOT NULL PRIMARY KEY,
        sealed         bytea  NOT NULL,
        expires_at     bigint NOT NULL
      );
      CREATE INDEX app_session_flashes_by_expiry ON app_session_flashes (expires_at);
    `,
  },
  {
    version: 9,
    name: 'webhooks: extra tries while the receiver is up',
    // As SQLite's migration 10.
    sql: `
      ALTER TABLE webhook_events ADD COLUMN step_due_at bigint;
      ALTER TABLE webhook_endpoints ADD COLUMN last_delivered_at bigint;
    `,
  },
  {
    version: 10,
    name: 'one statement for the commit step, a single save and a single delete',
    // Functions, no table: a save of one meal or a delete was about ten round trips, and a
    // batch's commit step four.
    sql: [DIGEST_FUNCTIONS_SQL, COMMIT_FUNCTION_SQL, SINGLE_WRITE_FUNCTIONS_SQL].join('\n'),
  },
  ...LATER_POSTGRES_MIGRATIONS,
];
