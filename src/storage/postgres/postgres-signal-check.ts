import { randomBytes } from 'node:crypto';
import type { default as postgres, Sql } from 'postgres';
import { connectPostgres } from './postgres-connect.js';
import { FEED_CHANNEL } from './postgres-feed-signals.js';

/** How long the check waits for its own notification: the long polls' promise is 1 s. */
export const SIGNAL_CHECK_MS = 1_000;

/** What the check found: whether a NOTIFY committed through the pool reached a LISTEN, and if not why. */
export type SignalCheck = { readonly arrived: true } | { readonly arrived: false; readonly reason: string };

// postgres.js reads `onnotify` from its options (src/connection.js) but does not type it.
type NotifiedOptions = postgres.Options<Record<string, never>> & {
  onnotify: (channel: string, payload: string) => void;
};

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether this process's change signals arrive (docs/operations.md#behind-pgbouncer): one
 * connection LISTENs on `listenUrl`, another commits a NOTIFY through `notifyUrl` (the store's
 * own, where every write notifies), and the first must hear it within 1 s. Behind a transaction
 * pooler it does not: the LISTEN ran on a server connection that went back to the pool, and a
 * notification comes to whichever client holds that connection, or to none. Two client
 * connections, never one: a pooler handing the same server connection back would otherwise
 * deliver the notification to the very client that listened, and the check would pass.
 * The payload is no store's [schema, user] pair, so every other listener ignores it.
 */
export async function checkSignals(
  listenUrl: string,
  notifyUrl: string,
  connectTimeoutS: number,
): Promise<SignalCheck> {
  const probe = JSON.stringify(['meal-export:signal-check', randomBytes(8).toString('hex')]);
  let heard: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const common = { max: 1, fetch_types: false, prepare: false, connect_timeout: connectTimeoutS };
  const listenOptions: NotifiedOptions = {
    ...common,
    onnotice: () => undefined,
    connection: { application_name: 'meal-export-check' },
    onnotify: (channel, payload) => {
      if (channel === FEED_CHANNEL && payload === probe) heard();
    },
  };
  const listener: Sql = connectPostgres(listenUrl, listenOptions);
  const notifier: Sql = connectPostgres(notifyUrl, { ...common, onnotice: () => undefined });
  let listening = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    await listener.unsafe(`LISTEN ${FEED_CHANNEL}`);
    listening = true;
    await notifier.unsafe('SELECT pg_notify($1, $2)', [FEED_CHANNEL, probe]);
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), SIGNAL_CHECK_MS);
    });
    if (await Promise.race([arrived.then(() => true as const), late])) return { arrived: true };
    return { arrived: false, reason: `no notification arrived within ${SIGNAL_CHECK_MS} ms` };
  } catch (error) {
    return { arrived: false, reason: messageOf(error) };
  } finally {
    clearTimeout(timer);
    // Behind a pooler the LISTEN stays on some server connection: most often the one handed
    // back next (last in, first out), so this usually clears it. Left there, a notification
    // reaching it while idle only makes the pooler close that connection.
    if (listening) await listener.unsafe('UNLISTEN *').catch(() => undefined);
    await Promise.all([listener.end({ timeout: 1 }), notifier.end({ timeout: 1 })]).catch(() => undefined);
  }
}
