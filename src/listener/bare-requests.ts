import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { AppError } from '../errors.js';
import { errorAnswerBytes } from './error-answer.js';
import type { RequestReport } from './request-report.js';

export interface BareRequests {
  readonly tls: boolean;
  readonly log: FastifyBaseLogger;
  readonly report: RequestReport | undefined;
  /** The refusal of a CONNECT: no route has that method (404, or the public listener's 405). */
  readonly connectRefusal: (request: IncomingMessage) => AppError;
  /**
   * True where requests carry bodies (the host API): `Expect: 100-continue` gets Node's interim
   * 100, so that a client waiting for it sends its body at once. Elsewhere no request has
   * content, and the request is answered as any other.
   */
  readonly continueBodies: boolean;
}

/**
 * Gives a JSON listener every request Node would otherwise answer itself, without the
 * contract's JSON (docs/errors.md):
 * - any other `Expect` (a bare 417 from Node) is answered as any other request;
 * - CONNECT, a dropped socket in Node, gets the listener's refusal, logged and counted.
 */
export function answerBareRequests(server: HttpServer | HttpsServer, deps: BareRequests): void {
  // Re-emitted as 'request', so that every listener of it (the connection drain too) sees them.
  const asRequest = (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response);
  server.on('checkExpectation', asRequest);
  if (!deps.continueBodies) server.on('checkContinue', asRequest);
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const refusal = deps.connectRefusal(request);
    socket.on('error', () => socket.destroy());
    socket.end(errorAnswerBytes(refusal, deps.tls));
    // What the client sends after is read and dropped: closing with unread bytes would reset
    // the connection, and the client could lose the answer (RFC 9112 section 9.6).
    socket.resume();
    deps.report?.(deps.log, request.method, request.url ?? '', refusal.status, 0);
  });
}
