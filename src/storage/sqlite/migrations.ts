/**
 * The SQLite schema, as numbered migrations applied in order and never edited once released
 * (add a new one instead).
 *
 * Meals are clustered on (user_id, modified_at, id) in a WITHOUT ROWID table, so one user's
 * feed is one contiguous range of the B-tree, read in order, and each row holds the meal's
 * JSON text ready to send: measured 5-7 x faster than one column per field, and flat with
 * table size. Deleted meals stay as tombstone rows until pruned.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE meals (
        user_id     TEXT    NOT NULL,
        modified_at INTEGER NOT NULL,
        id          TEXT    NOT NULL,
        deleted     INTEGER NOT NULL DEFAULT 0,
        body        TEXT    NOT NULL,
        PRIMARY KEY (user_id, modified_at, id)
      ) WITHOUT ROWID;
      -- ids are unique across all users: the import looks a meal up by id alone.
      CREATE UNIQUE INDEX meals_by_id ON meals (id);
      -- tombstone pruning reads only tombstones.
      CREATE INDEX meals_tombstones ON meals (modified_at) WHERE deleted = 1;

      -- Each user's change clock outlives pruned tombstones, so modifiedAt never goes back.
      CREATE TABLE user_clocks (
        user_id          TEXT    NOT NULL PRIMARY KEY,
        last_modified_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE api_keys (
        id           TEXT    NOT NULL PRIMARY KEY,
        user_id      TEXT    NOT NULL,
        name         TEXT    NOT NULL,
        prefix       TEXT    NOT NULL,
        digest       BLOB    NOT NULL UNIQUE,
        created_at   INTEGER NOT NULL,
        expires_at   INTEGER,
        last_used_at INTEGER,
        revoked_at   INTEGER
      );
      CREATE INDEX api_keys_by_user ON api_keys (user_id);

      CREATE TABLE settings (
        name  TEXT NOT NULL PRIMARY KEY,
        value BLOB NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: 'pruned tombstone watermark',
    // The position (modifiedAt, id) of the newest tombstone pruned for each user: a request
    // with includeDeleted gets 410 only when its start is at or before it (docs/api.md#the-call).
    // Kept beside the change clock, which every user with tombstones has.
    sql: `
      ALTER TABLE user_clocks ADD COLUMN pruned_modified_at INTEGER;
      ALTER TABLE user_clocks ADD COLUMN pruned_id TEXT;
    `,
  },
  {
    version: 3,
    name: 'app page: key requests per day, login tokens, sessions',
    sql: `
      -- Accepted requests per key and UTC day: the app page's quota use and chart.
      CREATE TABLE key_daily_requests (
        key_id   TEXT    NOT NULL,
        day      INTEGER NOT NULL,
        requests INTEGER NOT NULL,
        PRIMARY KEY (key_id, day)
      ) WITHOUT ROWID;
      CREATE INDEX key_daily_requests_by_day ON key_daily_requests (day);

      -- Digests only: the raw token and session id live in the link and the cookie.
      CREATE TABLE login_tokens (
        digest     BLOB    NOT NULL PRIMARY KEY,
        user_id    TEXT    NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX login_tokens_by_expiry ON login_tokens (expires_at);

      CREATE TABLE app_sessions (
        digest     BLOB    NOT NULL PRIMARY KEY,
        user_id    TEXT    NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX app_sessions_by_expiry ON app_sessions (expires_at);
    `,
  },
  {
    version: 4,
    name: 'last accepted request per key and day',
    // Where the interval between accepted requests resumes after a restart (docs/api.md#limits).
    // Beside the day's count, written by the same flush: after a crash the two
    // lose the same last seconds. api_keys.last_used_at is no substitute: a 429 moves it.
    // Null on the rows counted before.
    sql: `
      ALTER TABLE key_daily_requests ADD COLUMN last_accepted_at INTEGER;
    `,
  },
  {
    version: 5,
    name: 'webhooks: endpoints, pending events, attempts',
    // docs/webhooks.md#the-call (storage/webhook-store.ts). An event is open (a change extends it)
    // while it is its endpoint's newest and claimed_at is null: the first claim seals it for
    // good, whatever later happens to its attempts and lease (enabling resets both).
    sql: `
      CREATE TABLE webhook_endpoints (
        id                         TEXT    NOT NULL PRIMARY KEY,
        user_id                    TEXT    NOT NULL,
        url                        TEXT    NOT NULL,
        name                       TEXT    NOT NULL,
        secret                     TEXT    NOT NULL,
        previous_secret            TEXT,
        previous_secret_expires_at INTEGER,
        status                     TEXT    NOT NULL CHECK (status IN ('enabled', 'disabled')),
        created_at                 INTEGER NOT NULL,
        last_attempt_at            INTEGER,
        last_status                INTEGER
      ) WITHOUT ROWID;
      -- Every change of a user probes it (the outbox), and lists read it oldest first.
      CREATE INDEX webhook_endpoints_by_user ON webhook_endpoints (user_id, created_at);

      CREATE TABLE webhook_events (
        endpoint_id     TEXT    NOT NULL,
        seq             INTEGER NOT NULL,
        id              TEXT    NOT NULL,
        type            TEXT    NOT NULL,
        from_at         INTEGER,
        through_at      INTEGER,
        attempts        INTEGER NOT NULL,
        next_attempt_at INTEGER NOT NULL,
        leased_until    INTEGER,
        claimed_at      INTEGER,
        created_at      INTEGER NOT NULL,
        PRIMARY KEY (endpoint_id, seq)
      ) WITHOUT ROWID;
      -- The senders' question: which events are due.
      CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at);

      -- n orders attempts made in the same millisecond.
      CREATE TABLE webhook_attempts (
        n           INTEGER PRIMARY KEY,
        endpoint_id TEXT    NOT NULL,
        at          INTEGER NOT NULL,
        event_id    TEXT    NOT NULL,
        status      INTEGER,
        error       TEXT,
        ms          INTEGER NOT NULL
      );
      CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, at, n);
    `,
  },
  {
    version: 6,
    name: 'change sequence of the user clocks',
    // A store-wide sequence, moved with the user's clock by every write that changes a feed,
    // in commit order (SQLite has one writer): the long-poll signals ask "which users changed
    // since sequence N" and pay for what changed, not for how many wait
    // (sqlite-feed-signals.ts). Null on the rows written before.
    sql: `
      ALTER TABLE user_clocks ADD COLUMN change_seq INTEGER;
      CREATE INDEX user_clocks_by_change ON user_clocks (change_seq);
    `,
  },
  {
    version: 7,
    name: 'digest of the live meals on the user clocks',
    // Each user's live meals as a count and a 128-bit sum of one term per meal
    // (domain/meals-digest.ts), moved by every write's commit step (sqlite-commit.ts). Null
    // on the rows written before, until the backfill (sqlite-digest-backfill.ts) fills them.
    sql: `
      ALTER TABLE user_clocks ADD COLUMN live_count INTEGER;
      ALTER TABLE user_clocks ADD COLUMN digest_sum BLOB;
      -- The rows left to fill: empty once the backfill is done, so asking costs one probe.
      CREATE INDEX user_clocks_digest_pending ON user_clocks (user_id) WHERE live_count IS NULL;
    `,
  },
  {
    version: 8,
    name: 'source versions of meals, service tokens',
    // The newest sourceVersion the app's back end gave each meal, live or tombstone
    // (domain/source-version.ts): null when no write gave one. Beside the body, never in it:
    // pages send the body as it is.
    // Service tokens: the host API's credentials, as SHA-256 digests (docs/host-api.md#service-tokens).
    sql: `
      ALTER TABLE meals ADD COLUMN source_version INTEGER;

      CREATE TABLE service_tokens (
        id           TEXT    NOT NULL PRIMARY KEY,
        name         TEXT    NOT NULL,
        prefix       TEXT    NOT NULL,
        digest       BLOB    NOT NULL UNIQUE,
        created_at   INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at   INTEGER
      );
    `,
  },
  {
    version: 9,
    name: "app page: a form's result for the next page",
    // What a form did, kept for the page its redirect opens and taken once there (web/flash.ts):
    // sealed with a key only the browser's session id gives, so the store alone cannot read a
    // key or secret in it. One per session, short-lived.
    sql: `
      CREATE TABLE app_session_flashes (
        session_digest BLOB    NOT NULL PRIMARY KEY,
        sealed         BLOB    NOT NULL,
        expires_at     INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX app_session_flashes_by_expiry ON app_session_flashes (expires_at);
    `,
  },
  {
    version: 10,
    name: 'webhooks: extra tries while the receiver is up',
    // docs/webhooks.md#the-call: the step of the retry schedule an event is at apart from its
    // next try (null: the next try is the step), and the endpoint's last delivery.
    sql: `
      ALTER TABLE webhook_events ADD COLUMN step_due_at INTEGER;
      ALTER TABLE webhook_endpoints ADD COLUMN last_delivered_at INTEGER;
    `,
  },
  {
    version: 11,
    name: 'erasure: the clock floor, endpoints kept for their user.erased call',
    // docs/host-api.md#erasing-a-user. An erased user's clock goes, but a position handed out
    // in their former life must never pass a meal of a new one under the same id: the first
    // change of any user whose clock row is new takes max(now, floor + 1), the floor being the
    // greatest clock an erasure removed (one row, no user in it). An enabled endpoint of an
    // erased user is kept only for that last call: moved out of every user's reach (user_id
    // '', which no user id is), its owner kept apart for the call's body. The floor also keeps
    // the change sequence the erased clock row held, which must never be given out again
    // (sqlite-feed-signals.ts reads changes after a sequence).
    sql: `
      CREATE TABLE clock_floor (
        one        INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
        at         INTEGER NOT NULL,
        change_seq INTEGER NOT NULL
      );
      ALTER TABLE webhook_endpoints ADD COLUMN erased_user_id TEXT;
    `,
  },
  {
    version: 12,
    name: 'Connect: apps registered by the operator, the app a key was issued through',
    // docs/host-api.md#apps-connect. An app's redirect URIs are a JSON array of strings; its client
    // secret is kept as a SHA-256 digest only. api_keys.app_id names the app a key was granted
    // to (null: made by the person or the operator), kept after the app is deleted, which
    // revokes its keys; no foreign key, so a revoked key still says whose it was.
    sql: `
      CREATE TABLE apps (
        id                TEXT    NOT NULL PRIMARY KEY,
        name              TEXT    NOT NULL,
        redirect_uris     TEXT    NOT NULL,
        homepage_url      TEXT,
        secret_digest     BLOB    NOT NULL UNIQUE,
        created_at        INTEGER NOT NULL,
        secret_rotated_at INTEGER
      );
      ALTER TABLE api_keys ADD COLUMN app_id TEXT;
      CREATE INDEX api_keys_by_app ON api_keys (app_id, user_id) WHERE app_id IS NOT NULL;
    `,
  },
  {
    version: 13,
    name: 'Connect: authorization codes',
    // docs/connect.md#the-grant: a code's digest, what it is bound to, when it was used, the key
    // it gave (revoked when the code comes again) and when it came again.
    sql: `
      CREATE TABLE oauth_codes (
        digest         BLOB    NOT NULL PRIMARY KEY,
        app_id         TEXT    NOT NULL,
        user_id        TEXT    NOT NULL,
        redirect_uri   TEXT    NOT NULL,
        code_challenge TEXT    NOT NULL,
        scope          TEXT    NOT NULL,
        created_at     INTEGER NOT NULL,
        expires_at     INTEGER NOT NULL,
        used_at        INTEGER,
        key_id         TEXT,
        replayed_at    INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX oauth_codes_by_expiry ON oauth_codes (expires_at);
      CREATE INDEX oauth_codes_by_user ON oauth_codes (user_id);
    `,
  },
];
