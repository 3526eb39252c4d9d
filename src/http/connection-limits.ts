import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';

/**
 * What one connection may hold of the process, beside the request limits of CONTRACT.md
 * section 1 (headers within 10 s, a whole request within 30 s) that SERVER_LIMITS sets:
 *
 * - TLS_HANDSHAKE_TIMEOUT_MS: a TLS handshake gets the same 10 s as the headers (Node's
 *   default is 120 s, which also held SIGTERM's drain that long).
 * - WRITE_STALL_MS: an answer whose client stops reading holds what the kernel has not taken
 *   of its body in the process (a first-sync page is ~1.6 MB, its ciphertext as much again,
 *   pages of long descriptions ten times that) for as long as the socket lives; Node bounds
 *   none of that. Once a response has been handed to the socket, its connection is destroyed
 *   when no byte has gone out for WRITE_STALL_MS at most. Node's socket timer is the tool: it
 *   is refreshed by each completed write, and when it fires while the handle's write queue
 *   has shrunk since the last look it waits one more period; so with a period of half the
 *   bound, a stalled answer is cut between 5 and 10 s after its last byte went out, and a slow
 *   reader that keeps reading is never cut.
 * - MAX_CONNECTIONS: past this many open connections new ones are closed at once; with the
 *   two bounds above, what all of them hold together is bounded. The API's listener adds its
 *   `--max-waiting` to it: a held long poll keeps its connection, and still counts against
 *   the cap, without taking one of the places left for the requests being answered.
 */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
export const WRITE_STALL_MS = 10_000;
export const MAX_CONNECTIONS = 1_000;

export function limitConnections(server: HttpServer | HttpsServer, tls: boolean, maxConnections: number): void {
  server.maxConnections = maxConnections;
  if (tls) {
    // A handshake that failed or timed out leaves no channel to answer on: Node hands it to the
    // 'clientError' handler, whose HTTP answer would wait in the socket for a handshake that
    // never comes. Close it (after that handler, which runs first).
    server.on('tlsClientError', (_error: Error, socket: Socket) => socket.destroy());
  }
  // Before the handler (the first listener), which may end the response at once.
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    // From 'prefinish' on (end() called, the whole body handed to the socket) only the
    // client's reading moves the answer. A response with a 'timeout' listener is left to it by
    // Node, so the listener destroys the connection; once the response has finished Node resets
    // the socket's timer for keep-alive and this listener is no longer called.
    response.once('prefinish', () => response.setTimeout(WRITE_STALL_MS / 2, () => response.socket?.destroy()));
  });
}
