import type { Sql } from 'postgres';
import { newWebhookEventId } from '../../domain/webhook-ids.js';
import type { ErasedCounts, UserErasure } from '../user-erasure.js';
import { vacuumAfterErasures } from './postgres-erasure-vacuum.js';
import { notifyOutboxChanged } from './postgres-feed-signals.js';

const PREPARED = { prepare: true } as const;

/**
 * UserErasure on PostgreSQL, in one transaction that first takes what every other write of the
 * user takes (the clock row's lock, the advisory locks of key and endpoint creation), so the
 * counts are exact and no write of the user interleaves. Deleting an endpoint takes its events
 * and attempts (foreign keys). The dead rows stay in the tables' files until a VACUUM: the
 * transaction marks one due, and a serving instance runs it within minutes
 * (postgres-erasure-vacuum.ts).
 */
export function createPostgresUserErasure(sql: Sql): UserErasure {
  return {
    async eraseUser(userId: string, now: number): Promise<ErasedCounts> {
      const { counts, notices } = await sql.begin(async (tx) => {
        const query = <T extends object>(text: string, values: unknown[] = [userId]) =>
          tx.unsafe<T[]>(text, values as never[], PREPARED);
        await query(
          `SELECT pg_advisory_xact_lock(hashtextextended('meal-export:keys:' || $1, 0)),
                  pg_advisory_xact_lock(hashtextextended('meal-export:webhooks:' || $1, 0))`,
        );
        const [clock] = await query<{ last_modified_at: number | null }>(
          'SELECT last_modified_at FROM user_clocks WHERE user_id = $1 FOR UPDATE',
        );
        const [found] = await query<{ meals: number; keys: number; webhooks: number }>(
          `SELECT (SELECT count(*) FROM meals WHERE user_id = $1)::int AS meals,
                  (SELECT count(*) FROM api_keys WHERE user_id = $1)::int AS keys,
                  (SELECT count(*) FROM webhook_endpoints WHERE user_id = $1)::int AS webhooks`,
        );
        if (clock !== undefined && clock.last_modified_at !== null) {
          await query(
            `INSERT INTO clock_floor (one, at) VALUES (1, $1)
             ON CONFLICT (one) DO UPDATE SET at = greatest(clock_floor.at, excluded.at)`,
            [clock.last_modified_at],
          );
        }
        await query('DELETE FROM meals WHERE user_id = $1');
        await query('DELETE FROM user_clocks WHERE user_id = $1');
        await query('DELETE FROM key_daily_requests WHERE key_id IN (SELECT id FROM api_keys WHERE user_id = $1)');
        await query('DELETE FROM api_keys WHERE user_id = $1');
        await query('DELETE FROM login_tokens WHERE user_id = $1');
        await query('DELETE FROM oauth_codes WHERE user_id = $1');
        await query(
          'DELETE FROM app_session_flashes WHERE session_digest IN (SELECT digest FROM app_sessions WHERE user_id = $1)',
        );
        await query('DELETE FROM app_sessions WHERE user_id = $1');
        await query("DELETE FROM webhook_endpoints WHERE user_id = $1 AND status <> 'enabled'");
        await query(
          'DELETE FROM webhook_events WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE user_id = $1)',
        );
        await query(
          'DELETE FROM webhook_attempts WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE user_id = $1)',
        );
        // The last event of each enabled endpoint, then the endpoint out of the user's reach:
        // its name and last outcome go with the user; its URL and secrets stay for the call.
        const enabled = await query<{ id: string }>('SELECT id FROM webhook_endpoints WHERE user_id = $1');
        if (enabled.length > 0) {
          await query(
            `INSERT INTO webhook_events (endpoint_id, seq, id, type, attempts, next_attempt_at, created_at)
             SELECT endpoint_id, 1, event_id, 'user.erased', 0, $3, $3
             FROM unnest($1::text[], $2::text[]) AS queued (endpoint_id, event_id)`,
            [enabled.map((row) => row.id), enabled.map(() => newWebhookEventId()), now],
          );
          await query(
            `UPDATE webhook_endpoints SET erased_user_id = user_id, user_id = '', name = '',
               last_attempt_at = NULL, last_status = NULL, last_delivered_at = NULL
             WHERE user_id = $1`,
          );
        }
        await query(
          `INSERT INTO erasure_vacuum (one, erasures) VALUES (1, 1)
           ON CONFLICT (one) DO UPDATE SET erasures = erasure_vacuum.erasures + 1`,
          [],
        );
        return { counts: found ?? { meals: 0, keys: 0, webhooks: 0 }, notices: enabled.length };
      });
      // The senders on every instance hear of the events now rather than at their next look.
      if (notices > 0) await notifyOutboxChanged(sql);
      return counts;
    },

    vacuumErased: (now: number) => vacuumAfterErasures(sql, now),
  };
}
