import type { ConnectionOptions } from 'node:tls';
import postgres from 'postgres';
import { cannotOpen } from './postgres-errors.js';
import { TLS_FILE_PARAMS, tlsOfParams } from './postgres-tls-params.js';

/** What postgres.js is handed for a store's URL. */
export interface PostgresTarget {
  /** The URL, without the libpq parameters postgres.js would send to the server as settings. */
  readonly url: string;
  /** What the URL says in a form postgres.js does not read itself: the server's address, its TLS. */
  readonly options: {
    readonly host?: string;
    readonly port?: number;
    readonly ssl?: ConnectionOptions | false;
  };
}

// libpq's connection parameters for the address: given in the query, they win over the URL's host and port.
const ADDRESS_PARAMS = ['host', 'port'] as const;

function portOf(url: string, value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (port >= 1 && port <= 65_535) return port;
  throw cannotOpen(url, `its port "${value}" is not a number from 1 to 65535`);
}

// `postgres://user@/db?host=/dir` (libpq's and SQLAlchemy's form): credentials and no host,
// which URL parsing refuses; read with a stand-in host, which the query's host then replaces.
const NO_HOST_AFTER_CREDENTIALS = /^postgres(?:ql)?:\/\/[^/?#]*@(?=[/?#]|$)/i;

/** The URL parsed, and whether postgres.js must be handed it rewritten (a stand-in host); undefined when unreadable. */
function readUrl(url: string): { readonly parsed: URL; readonly standIn: boolean } | undefined {
  const credentials = NO_HOST_AFTER_CREDENTIALS.exec(url)?.[0];
  const readable = credentials === undefined ? url : `${credentials}localhost${url.slice(credentials.length)}`;
  try {
    return { parsed: new URL(readable), standIn: credentials !== undefined };
  } catch {
    return undefined;
  }
}

/** A percent-encoded socket folder, decoded; undefined when its encoding is broken (postgres.js then names the host it could not find). */
function decodedFolder(hostname: string): string | undefined {
  try {
    return decodeURIComponent(hostname);
  } catch {
    return undefined;
  }
}

/**
 * Reads a `postgres://` URL as libpq does where postgres.js does not, so that a URL that works
 * with psql works here:
 * - a Unix-socket folder (docs/configuration.md#postgresql-over-a-unix-socket) as the
 *   percent-encoded host (`postgres://user@%2Fvar%2Frun%2Fpostgresql/db`), or the host and port
 *   as query parameters, which win over the URL's own (`postgres://user@/db?host=/var/run/postgresql`).
 *   postgres.js connects to `<folder>/.s.PGSQL.<port>` when its host option is a path; left in
 *   the URL, `?host=` would reach the server as a setting and be refused, and the encoded
 *   folder would be looked up in DNS;
 * - the TLS files (`sslrootcert`, `sslcert`, `sslkey`: postgres-tls-params.ts).
 * Any other URL, a multi-host one included, goes to postgres.js as it is.
 */
export function postgresTarget(url: string): PostgresTarget {
  const read = readUrl(url);
  if (read === undefined) return { url, options: {} };
  const query = read.parsed.searchParams;
  const hostParam = query.get('host');
  const portParam = query.get('port');
  const hostname = read.standIn ? '' : read.parsed.hostname;
  const encodedFolder = /^%2F/i.test(hostname) ? decodedFolder(hostname) : undefined;
  const host = hostParam ?? encodedFolder;
  const port = portParam === null ? undefined : portOf(url, portParam);
  const serverName = host ?? (hostname === '' ? undefined : hostname.replace(/^\[(.*)\]$/, '$1'));
  const ssl = tlsOfParams(url, query, serverName?.startsWith('/') === true ? undefined : serverName);
  const options = {
    ...(host === undefined ? {} : { host }),
    ...(port === undefined ? {} : { port }),
    ...(ssl === undefined ? {} : { ssl }),
  };
  const consumed = [...ADDRESS_PARAMS, ...(ssl === undefined ? [] : TLS_FILE_PARAMS)].filter((name) => query.has(name));
  if (!read.standIn && consumed.length === 0) return { url, options };
  for (const name of consumed) query.delete(name);
  return { url: read.parsed.href, options };
}

/** A postgres.js pool for a store's URL, read as libpq reads it (postgresTarget); typed as postgres() types it. */
export function connectPostgres<Types extends Record<string, postgres.PostgresType> = Record<string, never>>(
  url: string,
  options: postgres.Options<Types>,
) {
  const target = postgresTarget(url);
  return postgres<Types>(target.url, { ...options, ...target.options });
}
