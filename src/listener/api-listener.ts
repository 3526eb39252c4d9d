import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { ConnectionDrain } from './connection-drain.js';
import { MAX_CONNECTIONS } from './connection-limits.js';
import { createListener, describeListenFailure, type ListenerOptions } from './listener.js';

// Node's parser limit is set above the contract's 16 KiB so that the gatekeeper, not the
// parser, answers most oversized requests with the right status (414 or 431); a missing Host
// is answered as JSON by http/front-door.ts too.
export const API_PARSER = { maxHeaderSize: 64 * 1024, requireHostHeader: false };

/** The public API's listener, made by Fastify through `serverFactory` (buildApp). */
export interface ApiListener {
  readonly serverFactory: FastifyServerFactory;
  /** Its connections, for the drain's deadline; undefined until buildApp has made it. */
  connections(): ConnectionDrain | undefined;
}

export function createApiListener(tls: ListenerOptions['tls'], maxWaiting: number): ApiListener {
  let connections: ConnectionDrain | undefined;
  const serverFactory: FastifyServerFactory = (handler) => {
    const listener = createListener(handler, {
      tls,
      parser: API_PARSER,
      // Held long polls keep their connections: they get places of their own (connection-limits.ts).
      maxConnections: MAX_CONNECTIONS + maxWaiting,
    });
    connections = listener.connections;
    return listener.server;
  };
  return { serverFactory, connections: () => connections };
}

/** A host as a URL names it: an IPv6 address in brackets (every listener's URL is made so). */
export function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Binds the app's listener and gives its URL (`https://HOST:PORT`, or http:// without TLS)
 * with the port actually bound; a failure to bind is the command's one line (listener.ts).
 */
export async function listenApi(app: FastifyInstance, host: string, port: number, tls: boolean): Promise<string> {
  try {
    await app.listen({
      host,
      port,
      listenTextResolver: (address) => `Server listening at ${address.replace(/^http:/, tls ? 'https:' : 'http:')}`,
    });
  } catch (error) {
    throw describeListenFailure(error, port);
  }
  const bound = app.server.address() as AddressInfo;
  return `${tls ? 'https' : 'http'}://${formatHost(host)}:${bound.port}`;
}
