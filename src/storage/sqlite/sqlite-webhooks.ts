import type { Database } from 'better-sqlite3';
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
import type { SqliteCommit } from './sqlite-commit.js';
import type { Implementation } from '../guarded-concerns.js';

/**
 * WebhookStore on SQLite. Writes that read before they write run in IMMEDIATE transactions:
 * SQLite's one writer makes the 5-per-user limit and the claims exact. The events of a change
 * are queued by its commit step (sqlite-commit.ts); an event due now without a change (an
 * endpoint enabled, a test) tells the sender through `commit`.
 */
export function createSqliteWebhooks(db: Database, commit: SqliteCommit): Implementation<WebhookStore> {
  /** An outbox write that no change of a feed signals: the sender hears of it. */
  const outboxChangedIf = (changed: boolean) => {
    if (changed) commit.outboxChanged();
    return changed;
  };
  const byId = db.prepare<[string], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`);
  const byUser = db.prepare<[string], EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE user_id = ? ORDER BY created_at, id`,
  );
  const countOfUser = db.prepare<[string], number>('SELECT count(*) FROM webhook_endpoints WHERE user_id = ?').pluck();
  const insertEndpoint = db.prepare(
    `INSERT INTO webhook_endpoints (id, user_id, url, name, secret, status, created_at)
     VALUES (?, ?, ?, ?, ?, 'enabled', ?)`,
  );
  const deleteEndpoint = db.prepare('DELETE FROM webhook_endpoints WHERE id = ?');
  const deleteEvents = db.prepare('DELETE FROM webhook_events WHERE endpoint_id = ?');
  const deleteAttempts = db.prepare('DELETE FROM webhook_attempts WHERE endpoint_id = ?');
  const setStatus = db.prepare('UPDATE webhook_endpoints SET status = ? WHERE id = ?');
  // Enabling starts the retry schedule over. A lease still running is left to its sender, so
  // that no two senders ever call with one event at once.
  const restartEvents = db.prepare<[{ id: string; now: number }]>(
    `UPDATE webhook_events SET attempts = 0, next_attempt_at = @now, step_due_at = NULL,
       leased_until = CASE WHEN leased_until > @now THEN leased_until END
     WHERE endpoint_id = @id`,
  );
  const rotate = db.prepare(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ?, secret = ? WHERE id = ?`,
  );
  const queueTest = db.prepare<[{ id: string; eventId: string; now: number }]>(
    `INSERT INTO webhook_events (endpoint_id, seq, id, type, attempts, next_attempt_at, created_at)
     SELECT endpoint.id, coalesce((SELECT max(seq) FROM webhook_events WHERE endpoint_id = endpoint.id), 0) + 1,
            @eventId, 'webhook.test', 0, @now, @now
     FROM webhook_endpoints AS endpoint WHERE endpoint.id = @id`,
  );
  const attemptsOf = db.prepare<[string, number], AttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE endpoint_id = ? ORDER BY at DESC, n DESC LIMIT ?`,
  );

  // The first pending event of each enabled endpoint, when due and not leased by a sender
  // whose lease still runs; the oldest due first.
  const dueEvents = db.prepare<[{ now: number; max: number; skip: string }], ClaimedRow>(
    `SELECT event.endpoint_id, ${CLAIMED_OWNER_COLUMNS}, endpoint.url, endpoint.secret, endpoint.previous_secret,
            endpoint.previous_secret_expires_at, event.seq, event.id, event.type, event.from_at, event.through_at,
            event.attempts, event.step_due_at, endpoint.last_delivered_at, event.created_at
     FROM webhook_events AS event JOIN webhook_endpoints AS endpoint ON endpoint.id = event.endpoint_id
     WHERE event.next_attempt_at <= @now AND (event.leased_until IS NULL OR event.leased_until <= @now)
       AND endpoint.status = 'enabled' AND endpoint.id NOT IN (SELECT value FROM json_each(@skip))
       AND event.seq = (SELECT min(seq) FROM webhook_events WHERE endpoint_id = event.endpoint_id)
     ORDER BY event.next_attempt_at, event.endpoint_id
     LIMIT @max`,
  );
  const lease = db.prepare(
    `UPDATE webhook_events SET leased_until = ?, claimed_at = coalesce(claimed_at, ?) WHERE endpoint_id = ? AND seq = ?`,
  );
  const claim = db.transaction(
    (now: number, leaseMs: number, max: number, skip: readonly string[]): ClaimedWebhookEvent[] => {
      // A negative LIMIT is no limit in SQLite.
      const rows = max < 1 ? [] : dueEvents.all({ now, max, skip: JSON.stringify(skip) });
      for (const row of rows) lease.run(now + leaseMs, now, row.endpoint_id, row.seq);
      return rows.map((row) => claimedEventOf(row, now));
    },
  );
  // A leased event is due when its lease runs out: a sender that died leaves it to another.
  const nextDue = db
    .prepare<[string], number | null>(
      `SELECT min(max(event.next_attempt_at, coalesce(event.leased_until, 0)))
       FROM webhook_events AS event JOIN webhook_endpoints AS endpoint ON endpoint.id = event.endpoint_id
       WHERE endpoint.status = 'enabled' AND endpoint.id NOT IN (SELECT value FROM json_each(?))
         AND event.seq = (SELECT min(seq) FROM webhook_events WHERE endpoint_id = event.endpoint_id)`,
    )
    .pluck();
  const backlog = db.prepare<[], { pending: number; oldest: number | null }>(
    'SELECT count(*) AS pending, min(created_at) AS oldest FROM webhook_events',
  );

  const insertAttempt = db.prepare(
    `INSERT INTO webhook_attempts (endpoint_id, at, event_id, status, error, ms)
     SELECT id, ?, ?, ?, ?, ? FROM webhook_endpoints WHERE id = ?`,
  );
  const trimAttempts = db.prepare(
    `DELETE FROM webhook_attempts WHERE endpoint_id = ? AND n NOT IN (
       SELECT n FROM webhook_attempts WHERE endpoint_id = ? ORDER BY at DESC, n DESC LIMIT ${ATTEMPTS_KEPT})`,
  );
  const markAttempt = db.prepare(
    `UPDATE webhook_endpoints SET last_attempt_at = ?, last_status = ?,
       status = CASE WHEN ? AND erased_user_id IS NULL THEN 'disabled' ELSE status END,
       last_delivered_at = CASE WHEN ? THEN ? ELSE last_delivered_at END
     WHERE id = ?`,
  );
  // Guarded by the event id: a seq comes back once an endpoint's events are all delivered.
  const deleteEvent = db.prepare('DELETE FROM webhook_events WHERE endpoint_id = ? AND seq = ? AND id = ?');
  const releaseEvent = db.prepare(
    'UPDATE webhook_events SET leased_until = NULL WHERE endpoint_id = ? AND seq = ? AND id = ?',
  );
  const retryEvent = db.prepare(
    `UPDATE webhook_events SET attempts = attempts + ?, next_attempt_at = coalesce(?, next_attempt_at),
       step_due_at = ?, leased_until = NULL
     WHERE endpoint_id = ? AND seq = ? AND id = ?`,
  );
  const remove = db.transaction((id: string): boolean => {
    deleteEvents.run(id);
    deleteAttempts.run(id);
    return deleteEndpoint.run(id).changes > 0;
  });
  const record = db.transaction(
    (event: ClaimedWebhookEvent, attempt: WebhookAttemptRecord, fate: WebhookAttemptFate): void => {
      const { endpointId, seq, eventId } = event;
      if (fate.kind === 'forget') {
        remove(endpointId);
        return;
      }
      insertAttempt.run(attempt.at, attempt.eventId, attempt.status, attempt.error, attempt.ms, endpointId);
      trimAttempts.run(endpointId, endpointId);
      const delivered = fate.kind === 'delivered' ? 1 : 0;
      markAttempt.run(attempt.at, attempt.status, fate.kind === 'disable' ? 1 : 0, delivered, attempt.at, endpointId);
      if (fate.kind === 'delivered') deleteEvent.run(endpointId, seq, eventId);
      else if (fate.kind === 'release') releaseEvent.run(endpointId, seq, eventId);
      else if (fate.kind === 'retry') {
        retryEvent.run(fate.counted ? 1 : 0, fate.at, fate.stepAt, endpointId, seq, eventId);
      } else retryEvent.run(1, null, null, endpointId, seq, eventId);
    },
  );

  const create = db.transaction((endpoint: NewWebhookEndpoint, maxPerUser: number): CreateWebhookResult => {
    if (byId.get(endpoint.id) !== undefined) return { ok: false, reason: 'duplicate_id' };
    if ((countOfUser.get(endpoint.userId) ?? 0) >= maxPerUser) return { ok: false, reason: 'too_many_webhooks' };
    const { id, userId, url, name, secret, createdAt } = endpoint;
    insertEndpoint.run(id, userId, url, name, secret, createdAt);
    const row = byId.get(id);
    if (row === undefined) throw new Error('the webhook just inserted cannot be read back');
    return { ok: true, endpoint: endpointRecordOf(row) };
  });
  const enable = db.transaction((id: string, now: number): boolean => {
    if (setStatus.run('enabled', id).changes === 0) return false;
    restartEvents.run({ id, now });
    return true;
  });

  return {
    createWebhook: (endpoint: NewWebhookEndpoint, maxPerUser: number) => create.immediate(endpoint, maxPerUser),
    listWebhooks: (userId: string): WebhookEndpointRecord[] => byUser.all(userId).map(endpointRecordOf),
    findWebhook(id: string): WebhookEndpointRecord | undefined {
      const row = byId.get(id);
      return row === undefined || row.user_id === ERASED_OWNER ? undefined : endpointRecordOf(row);
    },
    deleteWebhook: (id: string) => remove.immediate(id),
    enableWebhook: (id: string, now: number) => outboxChangedIf(enable.immediate(id, now)),
    rotateWebhookSecret: (id: string, secret: string, previousExpiresAt: number): boolean =>
      rotate.run(previousExpiresAt, secret, id).changes > 0,
    queueWebhookTest: (id: string, eventId: string, now: number): boolean =>
      outboxChangedIf(queueTest.run({ id, eventId, now }).changes > 0),
    listWebhookAttempts: (id: string): WebhookAttemptRecord[] => attemptsOf.all(id, ATTEMPTS_KEPT).map(attemptRecordOf),
    claimDueWebhookEvents: (now: number, leaseMs: number, max: number, skip: readonly string[] = []) =>
      claim.immediate(now, leaseMs, max, skip),
    nextWebhookDueAt: (skip: readonly string[] = []): number | undefined =>
      nextDue.get(JSON.stringify(skip)) ?? undefined,
    recordWebhookAttempt: (event: ClaimedWebhookEvent, attempt: WebhookAttemptRecord, fate: WebhookAttemptFate) =>
      record.immediate(event, attempt, fate),
    webhookBacklog() {
      const row = backlog.get();
      return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? undefined };
    },
  };
}
