import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { CliError } from '../errors.js';
import { type ConnectionDrain, trackConnections } from './connection-drain.js';
import { limitConnections, MAX_CONNECTIONS, TLS_HANDSHAKE_TIMEOUT_MS } from './connection-limits.js';
import { refusePlainHttp } from './plain-http-refusal.js';

/**
 * Headers within 10 s, the whole request within 30 s (docs/api.md#the-rest-of-the-transport),
 * checked every second (Node: 30 s).
 */
const REQUEST_LIMITS = { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 };

/**
 * The key exchange groups offered: 128-bit security or more, the ones every TLS 1.3 client
 * has. OpenSSL's default list adds ffdhe2048 (112 bits) and slow finite-field groups.
 */
const KEY_EXCHANGE_GROUPS = 'X25519:prime256v1:secp384r1';

export interface ListenerOptions {
  /** The certificate and key (src/tls), or undefined for plain HTTP behind a TLS proxy. */
  readonly tls: { readonly cert: string; readonly key: string } | undefined;
  /** Node parser settings of this listener's own (the API's front door answers what Node would). */
  readonly parser?: Pick<http.ServerOptions, 'maxHeaderSize' | 'requireHostHeader'>;
  /** Open connections at most (default MAX_CONNECTIONS); the API's adds its held long polls. */
  readonly maxConnections?: number;
}

export interface Listener {
  readonly server: http.Server | https.Server;
  /** Its connections, for the drain's deadline on shutdown. */
  readonly connections: ConnectionDrain;
}

/**
 * A listener of this service, the API's or the app page's: TLS 1.2 and up with the groups
 * above, the request limits
 * above, and every bound of listener/connection-limits.ts (handshake, stalled readers, number of
 * connections) and the shutdown drain of listener/connection-drain.ts. One function for both, so
 * that no listener the service opens is left with Node's defaults (a 120 s handshake, no cap).
 */
export function createListener(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  options: ListenerOptions,
): Listener {
  const limits = { ...REQUEST_LIMITS, ...options.parser };
  const { tls } = options;
  const server =
    tls === undefined
      ? http.createServer(limits, handler)
      : https.createServer(
          {
            ...limits,
            cert: tls.cert,
            key: tls.key,
            minVersion: 'TLSv1.2',
            ecdhCurve: KEY_EXCHANGE_GROUPS,
            handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
          },
          handler,
        );
  // Before the drain's 'connection' listener: see plain-http-refusal.ts.
  if (server instanceof https.Server) refusePlainHttp(server, TLS_HANDSHAKE_TIMEOUT_MS);
  const connections = trackConnections(server, tls !== undefined);
  limitConnections(server, tls !== undefined, options.maxConnections ?? MAX_CONNECTIONS);
  return { server, connections };
}

/**
 * A listener's failure to bind as the command's one line (docs/cli.md): `port 8443 is
 * in use`, rather than Node's `listen EADDRINUSE: address already in use 127.0.0.1:8443`.
 */
export function describeListenFailure(error: unknown, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return new CliError(`port ${port} is in use`, { cause: error });
  if (code === 'EACCES') return new CliError(`port ${port} needs privileges this process lacks`, { cause: error });
  if (code === 'EADDRNOTAVAIL') return new CliError(`the address to listen on is not this machine's`, { cause: error });
  return error;
}
