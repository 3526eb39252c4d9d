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
}

/**
 * The methods whose requests carry content here (the host API's saves and imports, Connect's
 * token and revocation): their `Expect: 100-continue` gets the interim 100, so that a client
 * waiting for it sends its content at once instead of after its own timeout. Any other request
 * has no content to wait for, and is answered as any other (RFC 9110 section 10.1.1 lets the 100
 * be omitted).
 */
const CONTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Gives a JSON listener every request Node would otherwise answer itself, without the
 * contract's JSON (docs/errors.md):
 * - any other `Expect` (a bare 417 from Node) is answered as any other request, and
 *   `100-continue` gets its interim 100 only where content is to come (CONTENT_METHODS);
 * - CONNECT, a dropped socket in Node, gets the listener's refusal, logged and counted.
 */
export function answerBareRequests(server: HttpServer | HttpsServer, deps: BareRequests): void {
  // Re-emitted as 'request', so that every listener of it (the connection drain too) sees them.
  const asRequest = (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response);
  server.on('checkExpectation', asRequest);
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (CONTENT_METHODS.has(request.method ?? '')) response.writeContinue();
    asRequest(request, response);
  });
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
