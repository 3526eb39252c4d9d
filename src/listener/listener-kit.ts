import type { AddressInfo, Socket } from 'node:net';
import {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerFactory,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerBareRequests, type BareRequests } from './bare-requests.js';
import { createClientErrorHandler } from './client-error.js';
import type { ConnectionDrain } from './connection-drain.js';
import { type ErrorMapping, frameworkErrorsOf } from './error-mapping.js';
import { createListener, describeListenFailure, type ListenerOptions } from './listener.js';

// Node's parser limit is set above the contract's 16 KiB so that the listener, not the parser,
// answers most oversized requests with the right status (414 or 431) in JSON; a missing Host
// is answered as JSON by the listener too (http/gatekeeper.ts transportRefusal).
export const API_PARSER = { maxHeaderSize: 64 * 1024, requireHostHeader: false };

export interface ListenerKitOptions {
  /** The certificate and key (src/tls), or undefined for plain HTTP behind a TLS proxy. */
  readonly tls: ListenerOptions['tls'];
  /**
   * A JSON listener (the public one, the host API's): Node's parser leaves the sizes and a
   * missing Host to the listener (API_PARSER), and keeps every header line (past 1000 Node drops
   * the rest, so that the 16 KiB limit would not count them and an Origin or Authorization far
   * down would go unread; the parser's 64 KiB still bounds them). The page keeps Node's parser.
   */
  readonly json: boolean;
  /** Open connections at most (default: listener/connection-limits.ts); the API's adds its held long polls. */
  readonly maxConnections?: number;
}

/**
 * What every listener of the service (the public one, the host API's, the app page's) is made
 * of, in one place: its server (TLS, request bounds, connection limits: listener/listener.ts)
 * made through Fastify's `serverFactory`, its connections for the drain's deadline on SIGTERM
 * (serve/server-close.ts), the Fastify options they share, and its binding.
 */
export interface ListenerKit {
  readonly tls: boolean;
  readonly serverFactory: FastifyServerFactory;
  /** Its connections, for the drain's deadline; undefined until Fastify has made the server. */
  connections(): ConnectionDrain | undefined;
  /**
   * Fastify's options every listener takes: the kit's server, the error mapping's answers to the
   * framework's own refusals, and one request line of our own (listener/request-report.ts)
   * instead of Fastify's two.
   */
  fastifyOptions(log: FastifyBaseLogger, errors: ErrorMapping, doors?: Doors): KitFastifyOptions;
  /**
   * Binds the app and gives its URL (`https://HOST:PORT`, or http:// without TLS) with the port
   * actually bound; a failure to bind is the command's one line (listener.ts). `label` starts
   * Fastify's line about it (`Server listening`, the page's `App page listening`).
   */
  listen(app: FastifyInstance, host: string, port: number, label?: string): Promise<string>;
}

type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** What a listener puts between the server and Fastify. */
export interface Doors {
  /** The first code to see every request, before Fastify's handler (the public front door). */
  readonly door?: (fastifyHandler: RequestHandler) => RequestHandler;
  /** A JSON listener's answers to the requests Node would answer itself (bare-requests.ts). */
  readonly bare?: BareRequests;
  /** When a JSON listener answers what the parser refused: after the connection's answers in flight (http/answer-order.ts). */
  readonly afterAnswers?: (socket: Socket, answer: () => void) => void;
}

export type KitFastifyOptions = Pick<
  FastifyServerOptions,
  'loggerInstance' | 'logController' | 'return503OnClosing' | 'forceCloseConnections' | 'frameworkErrors'
> & {
  readonly serverFactory: FastifyServerFactory;
  readonly clientErrorHandler?: (error: Error, socket: Socket) => void;
};

/** A JSON listener's answer, in JSON, to what Node's parser refuses (listener/client-error.ts). */
function clientErrorsOf(tls: boolean, afterAnswers: Doors['afterAnswers']) {
  const answer = createClientErrorHandler(tls);
  if (afterAnswers === undefined) return { clientErrorHandler: answer };
  return {
    clientErrorHandler: (error: Error, socket: Socket) => afterAnswers(socket, () => answer(error, socket)),
  };
}

export function createListenerKit(options: ListenerKitOptions): ListenerKit {
  const tls = options.tls !== undefined;
  let connections: ConnectionDrain | undefined;
  const serverFactory: FastifyServerFactory = (handler) => {
    const listener = createListener(handler, {
      tls: options.tls,
      ...(options.json ? { parser: API_PARSER } : {}),
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    });
    if (options.json) listener.server.maxHeadersCount = 0;
    connections = listener.connections;
    return listener.server;
  };
  return {
    tls,
    serverFactory,
    connections: () => connections,
    fastifyOptions: (log, errors, doors = {}) => ({
      loggerInstance: log,
      logController: new LogController({ disableRequestLogging: true }),
      // A request in flight at SIGTERM is answered, an idle connection closed by the drain
      // (listener/connection-drain.ts): Fastify's 'idle' closing would cut large answers still
      // being sent, and none is answered 503 by Fastify meanwhile.
      return503OnClosing: false,
      forceCloseConnections: false,
      serverFactory: (handler, serverOptions) => {
        const { door, bare } = doors;
        const server = serverFactory(door === undefined ? handler : door(handler), serverOptions);
        if (bare !== undefined) answerBareRequests(server, bare);
        return server;
      },
      frameworkErrors: frameworkErrorsOf(errors),
      // The page keeps Fastify's own answer to what the parser refuses: a browser sends no such request.
      ...(options.json ? clientErrorsOf(tls, doors.afterAnswers) : {}),
    }),
    listen: (app, host, port, label) => listenOn(app, { host, port, tls, label: label ?? 'Server listening' }),
  };
}

/** A host as a URL names it: an IPv6 address in brackets (every listener's URL is made so). */
export function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function listenOn(
  app: FastifyInstance,
  at: { readonly host: string; readonly port: number; readonly tls: boolean; readonly label: string },
): Promise<string> {
  const { host, port, tls } = at;
  try {
    await app.listen({
      host,
      port,
      // Fastify's own line would say http:// for an HTTPS listener.
      listenTextResolver: (address) => `${at.label} at ${address.replace(/^http:/, tls ? 'https:' : 'http:')}`,
    });
  } catch (error) {
    throw describeListenFailure(error, port);
  }
  const bound = app.server.address() as AddressInfo;
  return `${tls ? 'https' : 'http'}://${formatHost(host)}:${bound.port}`;
}
