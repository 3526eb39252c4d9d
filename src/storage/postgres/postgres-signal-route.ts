import { redactedUrl } from '../../config.js';
import type { StorageOptions } from '../storage.js';
import { CHANGE_POLL_MS } from './postgres-change-poll.js';
import { checkSignals } from './postgres-signal-check.js';

/** How a PostgreSQL handle hears of commits, and how it may speak to its pool. */
export interface SignalRoute {
  /** Where its LISTEN connection goes; undefined: it polls the change sequence instead. */
  readonly listenUrl: string | undefined;
  /**
   * Whether its pool uses unnamed statements only: a statement prepared on one server
   * connection of a transaction pooler is not there on the next one (pgbouncer before 1.21).
   */
  readonly unnamedStatements: boolean;
  /** Says, once, what was chosen and why (nothing when all is as on PostgreSQL itself). */
  announce(): void;
}

/**
 * Chooses the route (docs/operations.md#behind-pgbouncer). A serving process, the one that
 * listens, checks at start that its own notification arrives: through PostgreSQL itself, or
 * a pooler in session mode, it does, and named statements (planned once per connection, about
 * three times faster on the feed's page statement) stay; behind a transaction pooler it does
 * not, and the process polls and names no statement. With `--direct-db` the LISTEN goes
 * there, and `--db` is taken for a pooler. `meal-export/host` (StorageOptions.longLived) checks
 * the same way. A short command cannot tell what `--db` is without paying for the check, so it
 * names no statement: it runs few, and an unnamed one works through anything.
 */
export async function chooseSignalRoute(
  url: string,
  options: StorageOptions,
  connectTimeoutS: number,
): Promise<SignalRoute> {
  const direct = options.directDatabase;
  const listenUrl = direct ?? url;
  const quiet = () => undefined;
  if (options.serving !== true && options.longLived !== true)
    return { listenUrl, unnamedStatements: true, announce: quiet };
  const pooler = direct !== undefined && direct !== url;
  const check = await checkSignals(listenUrl, url, connectTimeoutS);
  if (check.arrived) {
    return {
      listenUrl,
      unnamedStatements: pooler,
      announce: () => {
        if (direct === undefined) return;
        options.log?.info(
          { listen: redactedUrl(direct), statements: pooler ? 'unnamed' : 'named' },
          'change signals: LISTEN on the --direct-db connection',
        );
      },
    };
  }
  return {
    listenUrl: undefined,
    unnamedStatements: true,
    announce: () =>
      options.log?.warn(
        { listen: redactedUrl(listenUrl), reason: check.reason, pollMs: CHANGE_POLL_MS, statements: 'unnamed' },
        `change signals do not arrive (likely a transaction pooler such as PgBouncer): polling for changes every ${CHANGE_POLL_MS} ms instead; set --direct-db to PostgreSQL itself`,
      ),
  };
}
