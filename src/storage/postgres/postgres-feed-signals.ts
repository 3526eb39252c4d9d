import type { default as postgres, Sql } from 'postgres';
import { createFeedWatchers, type FeedWatch, type FeedWatcher } from '../change-signals.js';
import { connectPostgres } from './postgres-connect.js';

/**
 * The channel every write transaction that changes a user's feed notifies (the commit step,
 * postgres-functions-commit.ts, where the user's clock is saved), with the JSON array
 * [schema, user id] as payload: several
 * stores may share a database in schemas of their own. PostgreSQL delivers a NOTIFY on commit
 * only, and never for a transaction rolled back.
 */
export const FEED_CHANNEL = 'meal_export_feed';

/**
 * What a notification of this store's schema says: the user whose feed moved, or null for a
 * change of the webhook outbox alone (notifyOutboxChanged); undefined for another store's.
 */
function subjectOf(payload: string, schema: string): string | null | undefined {
  try {
    const parsed: unknown = JSON.parse(payload);
    if (!Array.isArray(parsed) || parsed[0] !== schema) return undefined;
    const subject: unknown = parsed[1];
    return typeof subject === 'string' || subject === null ? subject : undefined;
  } catch {
    // Not ours: someone else's NOTIFY on the same channel name.
    return undefined;
  }
}

/**
 * Wakes the webhook senders of every instance after a change of the outbox that is no change
 * of a feed (a test event queued, an endpoint enabled again), in the caller's transaction or
 * at once.
 */
export async function notifyOutboxChanged(sql: Pick<Sql, 'unsafe'>): Promise<void> {
  await sql.unsafe(`SELECT pg_notify('${FEED_CHANNEL}', json_build_array(current_schema(), null)::text)`);
}

/** The first retry after the listening connection drops, then doubling up to the last. */
const RELISTEN_DELAYS_MS = [100, 250, 500, 1000];

export interface PostgresFeedSignals {
  watch(watcher: FeedWatcher): FeedWatch;
  close(): Promise<void>;
}

// postgres.js reads `onnotify` from its options (src/connection.js) but does not type it.
type ListenOptions = postgres.Options<Record<string, never>> & { onnotify: (channel: string, payload: string) => void };

/**
 * Change signals on PostgreSQL (storage/change-signals.ts): one `LISTEN` connection per process,
 * opened when the first watcher comes (a CLI command never opens one), whoever wrote: this
 * process, another process, another instance. When that connection drops, it is opened again
 * (after 100 ms, then up to every second) until it listens, and every watcher is told that
 * signals were lost: its readers read again, so a change committed while nobody listened
 * costs latency, never the change. postgres.js's own `listen()` is not used: it re-listens
 * once after a drop and gives up silently when that one attempt fails. `url` is PostgreSQL
 * itself: `--direct-db` when given, else the store's own URL once a check at start showed that
 * notifications come back through it (postgres-signal-route.ts); behind a transaction pooler
 * they would not, and the change poll (postgres-change-poll.ts) stands in.
 */
export function createPostgresFeedSignals(url: string, connectTimeoutS: number): PostgresFeedSignals {
  const watchers = createFeedWatchers();
  let sql: Sql | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let schema: string | undefined;
  let listening: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    listening = resolve;
  });

  function listen(): void {
    if (closed) return;
    const options: ListenOptions = {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: false,
      connect_timeout: connectTimeoutS,
      onnotice: () => undefined,
      connection: { application_name: 'meal-export-listen' },
      onnotify: (channel, payload) => {
        const subject = schema === undefined || channel !== FEED_CHANNEL ? undefined : subjectOf(payload, schema);
        if (subject === null) watchers.somethingChanged();
        else if (subject !== undefined) watchers.moved([subject]);
      },
      onclose: () => dropped(),
    };
    const listener = (sql ??= connectPostgres(url, options));
    (async () => {
      // The schema the writers' current_schema() names: the one this URL's search_path picks.
      schema ??= (await listener.unsafe<{ schema: string }[]>('SELECT current_schema() AS schema'))[0]?.schema;
      await listener.unsafe(`LISTEN ${FEED_CHANNEL}`);
    })().then(
      () => {
        failures = 0;
        listening();
        // Whatever committed while nobody listened: every reader reads again.
        watchers.lost();
      },
      () => dropped(),
    );
  }

  function dropped(): void {
    if (closed || retry !== undefined) return;
    const delay = RELISTEN_DELAYS_MS[Math.min(failures, RELISTEN_DELAYS_MS.length - 1)] ?? 1000;
    failures += 1;
    retry = setTimeout(() => {
      retry = undefined;
      listen();
    }, delay);
    retry.unref();
  }

  return {
    watch(watcher) {
      const watch = watchers.add(watcher, () => undefined, ready);
      if (sql === undefined) listen();
      return watch;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await sql?.end({ timeout: 1 }).catch(() => undefined);
    },
  };
}
