import { notifyOutboxChanged } from './postgres-feed-signals.js';
import type { Sql } from 'postgres';
import {
  ATTEMPT_COLUMNS,
  ATTEMPTS_KEPT,
  type AttemptRow,
  attemptRecordOf,
  type ClaimedRow,
  CLAIMED_OWNER_COLUMNS,
  claimedEventOf,
  ENDPOINT_COLUMNS,
  type EndpointRow,
  endpointRecordOf,
  ERASED_OWNER,
} from '../webhook-rows.js';
import type {
  ClaimedWebhookEvent,
  NewWebhookEndpoint,
  WebhookAttemptFate,
  WebhookAttemptRecord,
  WebhookEndpointRecord,
} from '../../domain/webhook-records.js';
import type { CreateWebhookResult, WebhookStore } from '../webhook-store.js';

const PREPARED = { prepare: true } as const;
/** Tries of a test event whose seq a concurrent change took first. */
const MAX_QUEUE_ATTEMPTS = 3;

/**
 * The webhook half of the PostgreSQL adapter (the same behaviour as sqlite/sqlite-webhooks.ts),
 * for senders on any number of instances: claims lock with FOR UPDATE SKIP LOCKED, so that two
 * never take one event. The events are queued by the commit step
 * (postgres-functions-commit.ts).
 */
export function createPostgresWebhooks(sql: Sql): WebhookStore {
  async function findWebhook(id: string): Promise<WebhookEndpointRecord | undefined> {
    const [row] = await sql.unsafe<EndpointRow[]>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`,
      [id],
      PREPARED,
    );
    return row === undefined || row.user_id === ERASED_OWNER ? undefined : endpointRecordOf(row);
  }

  return {
    /**
     * Count and insert under a transaction-scoped advisory lock on the user, as createApiKey
     * (postgres-keys.ts): two creations for one user run one after the other, so the limit holds.
     */
    createWebhook(endpoint: NewWebhookEndpoint, maxPerUser: number): Promise<CreateWebhookResult> {
      return sql.begin(async (tx) => {
        await tx.unsafe(
          "SELECT pg_advisory_xact_lock(hashtextextended('meal-export:webhooks:' || $1, 0))",
          [endpoint.userId],
          PREPARED,
        );
        const [taken] = await tx.unsafe('SELECT 1 FROM webhook_endpoints WHERE id = $1', [endpoint.id], PREPARED);
        if (taken !== undefined) return { ok: false, reason: 'duplicate_id' } as const;
        const [counted] = await tx.unsafe<{ endpoints: number }[]>(
          'SELECT count(*)::int AS endpoints FROM webhook_endpoints WHERE user_id = $1',
          [endpoint.userId],
          PREPARED,
        );
        if ((counted?.endpoints ?? 0) >= maxPerUser) return { ok: false, reason: 'too_many_webhooks' } as const;
        const [row] = await tx.unsafe<EndpointRow[]>(
          `INSERT INTO webhook_endpoints (id, user_id, url, name, secret, status, created_at)
           VALUES ($1, $2, $3, $4, $5, 'enabled', $6) RETURNING ${ENDPOINT_COLUMNS}`,
          [endpoint.id, endpoint.userId, endpoint.url, endpoint.name, endpoint.secret, endpoint.createdAt],
          PREPARED,
        );
        if (row === undefined) throw new Error('the webhook just inserted was not returned');
        return { ok: true, endpoint: endpointRecordOf(row) } as const;
      });
    },

    async listWebhooks(userId: string): Promise<WebhookEndpointRecord[]> {
      const rows = await sql.unsafe<EndpointRow[]>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at, id`,
        [userId],
        PREPARED,
      );
      return rows.map(endpointRecordOf);
    },

    findWebhook,

    /** Its events and attempts go with it (ON DELETE CASCADE). */
    async deleteWebhook(id: string): Promise<boolean> {
      const result = await sql.unsafe('DELETE FROM webhook_endpoints WHERE id = $1', [id], PREPARED);
      return result.count > 0;
    },

    /** As SQLite: the retry schedule starts over; a lease still running stays with its sender. */
    async enableWebhook(id: string, now: number): Promise<boolean> {
      const [row] = await sql.unsafe<{ found: number }[]>(
        `WITH enabled AS (
           UPDATE webhook_endpoints SET status = 'enabled' WHERE id = $1 RETURNING id
         ), restarted AS (
           UPDATE webhook_events SET attempts = 0, next_attempt_at = $2, step_due_at = NULL,
             leased_until = CASE WHEN leased_until > $2 THEN leased_until END
           WHERE endpoint_id IN (SELECT id FROM enabled)
         )
         SELECT count(*)::int AS found FROM enabled`,
        [id, now],
        PREPARED,
      );
      const found = (row?.found ?? 0) > 0;
      if (found) await notifyOutboxChanged(sql);
      return found;
    },

    async rotateWebhookSecret(id: string, secret: string, previousExpiresAt: number): Promise<boolean> {
      const result = await sql.unsafe(
        `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $2, secret = $3
         WHERE id = $1`,
        [id, previousExpiresAt, secret],
        PREPARED,
      );
      return result.count > 0;
    },

    /** After the newest event; tried again when a change queued at the same moment took that seq. */
    async queueWebhookTest(id: string, eventId: string, now: number): Promise<boolean> {
      for (let attempt = 1; ; attempt += 1) {
        const [row] = await sql.unsafe<{ found: number; queued: number }[]>(
          `WITH target AS (
             SELECT endpoint.id, (SELECT max(seq) FROM webhook_events WHERE endpoint_id = endpoint.id) AS newest_seq
             FROM webhook_endpoints AS endpoint WHERE endpoint.id = $1
             FOR KEY SHARE
           ), queued AS (
             INSERT INTO webhook_events (endpoint_id, seq, id, type, attempts, next_attempt_at, created_at)
             SELECT target.id, coalesce(target.newest_seq, 0) + 1, $2, 'webhook.test', 0, $3, $3 FROM target
             ON CONFLICT (endpoint_id, seq) DO NOTHING
             RETURNING 1
           )
           SELECT (SELECT count(*) FROM target)::int AS found, (SELECT count(*) FROM queued)::int AS queued`,
          [id, eventId, now],
          PREPARED,
        );
        if (row === undefined || row.found === 0) return false;
        if (row.queued > 0) {
          await notifyOutboxChanged(sql);
          return true;
        }
        if (attempt >= MAX_QUEUE_ATTEMPTS) throw new Error(`could not queue a test event for webhook ${id}`);
      }
    },

    async listWebhookAttempts(id: string): Promise<WebhookAttemptRecord[]> {
      const rows = await sql.unsafe<AttemptRow[]>(
        `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY at DESC, n DESC LIMIT $2`,
        [id, ATTEMPTS_KEPT],
        PREPARED,
      );
      return rows.map(attemptRecordOf);
    },

    /**
     * One statement, so one transaction: the first pending event of each enabled endpoint, due
     * and not leased by a sender whose lease still runs, locked with SKIP LOCKED (another
     * sender's claim, or a change extending the open event, holds it: it waits for the next
     * round), then leased and sealed.
     */
    async claimDueWebhookEvents(
      now: number,
      leaseMs: number,
      max: number,
      skip: readonly string[] = [],
    ): Promise<ClaimedWebhookEvent[]> {
      if (max < 1) return [];
      const rows = await sql.unsafe<(ClaimedRow & { next_attempt_at: number })[]>(
        `WITH due AS (
           SELECT event.endpoint_id, event.seq FROM webhook_events AS event
           JOIN webhook_endpoints AS endpoint ON endpoint.id = event.endpoint_id
           WHERE event.next_attempt_at <= $1 AND (event.leased_until IS NULL OR event.leased_until <= $1)
             AND endpoint.status = 'enabled' AND NOT (endpoint.id = ANY($4::text[]))
             AND event.seq = (SELECT min(seq) FROM webhook_events WHERE endpoint_id = event.endpoint_id)
           ORDER BY event.next_attempt_at, event.endpoint_id
           LIMIT $3
           FOR UPDATE OF event SKIP LOCKED
         )
         UPDATE webhook_events AS event SET leased_until = $1::bigint + $2::bigint, claimed_at = coalesce(event.claimed_at, $1)
         FROM due, webhook_endpoints AS endpoint
         WHERE event.endpoint_id = due.endpoint_id AND event.seq = due.seq AND endpoint.id = event.endpoint_id
         RETURNING event.endpoint_id, ${CLAIMED_OWNER_COLUMNS}, endpoint.url, endpoint.secret, endpoint.previous_secret,
           endpoint.previous_secret_expires_at, event.seq, event.id, event.type, event.from_at, event.through_at,
           event.attempts, event.step_due_at, endpoint.last_delivered_at, event.created_at, event.next_attempt_at`,
        [now, leaseMs, max, [...skip]],
        PREPARED,
      );
      return [...rows]
        .sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.endpoint_id < b.endpoint_id ? -1 : 1))
        .map((row) => claimedEventOf(row, now));
    },

    /** A leased event is due when its lease runs out: a sender that died leaves it to another. */
    async nextWebhookDueAt(skip: readonly string[] = []): Promise<number | undefined> {
      const [row] = await sql.unsafe<{ due: number | null }[]>(
        `SELECT min(greatest(event.next_attempt_at, coalesce(event.leased_until, 0))) AS due
         FROM webhook_events AS event JOIN webhook_endpoints AS endpoint ON endpoint.id = event.endpoint_id
         WHERE endpoint.status = 'enabled' AND NOT (endpoint.id = ANY($1::text[]))
           AND event.seq = (SELECT min(seq) FROM webhook_events WHERE endpoint_id = event.endpoint_id)`,
        [[...skip]],
        PREPARED,
      );
      return row?.due ?? undefined;
    },

    /**
     * One transaction. The attempt is written only while the endpoint exists (FOR KEY SHARE: a
     * delete meanwhile waits, or went first and the attempt is dropped with it); the event's
     * fate is guarded by its id, since a seq comes back once an endpoint's events are all delivered.
     */
    async recordWebhookAttempt(
      event: ClaimedWebhookEvent,
      attempt: WebhookAttemptRecord,
      fate: WebhookAttemptFate,
    ): Promise<void> {
      const { endpointId, seq, eventId } = event;
      if (fate.kind === 'forget') {
        // Its events and attempts go with it (foreign keys).
        await sql.unsafe('DELETE FROM webhook_endpoints WHERE id = $1', [endpointId], PREPARED);
        return;
      }
      await sql.begin(async (tx) => {
        await tx.unsafe(
          `WITH endpoint AS (SELECT id FROM webhook_endpoints WHERE id = $1 FOR KEY SHARE)
           INSERT INTO webhook_attempts (endpoint_id, at, event_id, status, error, ms)
           SELECT id, $2, $3, $4, $5, $6 FROM endpoint`,
          [endpointId, attempt.at, attempt.eventId, attempt.status, attempt.error, attempt.ms],
          PREPARED,
        );
        await tx.unsafe(
          `DELETE FROM webhook_attempts WHERE endpoint_id = $1 AND n NOT IN (
             SELECT n FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY at DESC, n DESC LIMIT $2)`,
          [endpointId, ATTEMPTS_KEPT],
          PREPARED,
        );
        await tx.unsafe(
          `UPDATE webhook_endpoints SET last_attempt_at = $2, last_status = $3,
             status = CASE WHEN $4 AND erased_user_id IS NULL THEN 'disabled' ELSE status END,
             last_delivered_at = CASE WHEN $5 THEN $2 ELSE last_delivered_at END
           WHERE id = $1`,
          [endpointId, attempt.at, attempt.status, fate.kind === 'disable', fate.kind === 'delivered'],
          PREPARED,
        );
        if (fate.kind === 'delivered') {
          await tx.unsafe(
            'DELETE FROM webhook_events WHERE endpoint_id = $1 AND seq = $2 AND id = $3',
            [endpointId, seq, eventId],
            PREPARED,
          );
        } else if (fate.kind === 'release') {
          await tx.unsafe(
            'UPDATE webhook_events SET leased_until = NULL WHERE endpoint_id = $1 AND seq = $2 AND id = $3',
            [endpointId, seq, eventId],
            PREPARED,
          );
          // Due again at once: the senders of the other instances hear of it now, not when the lease would have ended.
          await notifyOutboxChanged(tx);
        } else {
          await tx.unsafe(
            `UPDATE webhook_events SET attempts = attempts + $5, next_attempt_at = coalesce($4, next_attempt_at),
               step_due_at = $6, leased_until = NULL
             WHERE endpoint_id = $1 AND seq = $2 AND id = $3`,
            fate.kind === 'retry'
              ? [endpointId, seq, eventId, fate.at, fate.counted ? 1 : 0, fate.stepAt]
              : [endpointId, seq, eventId, null, 1, null],
            PREPARED,
          );
        }
      });
    },

    async webhookBacklog(): Promise<{ readonly pending: number; readonly oldestCreatedAt: number | undefined }> {
      const [row] = await sql.unsafe<{ pending: number; oldest: number | null }[]>(
        'SELECT count(*)::int AS pending, min(created_at) AS oldest FROM webhook_events',
        [],
        PREPARED,
      );
      return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? undefined };
    },
  };
}
