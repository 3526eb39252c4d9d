import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { createStalledAnswers } from './stalled-answers.js';
import { SENDING_IN_SLICES } from './sliced-write.js';

/**
 * One connection's bounds on the process, beside the request limits of
 * docs/api.md#the-rest-of-the-transport (figures: docs/reliability.md#figures). A TLS handshake gets
 * the headers' 10 s: Node's default of 120 s also held SIGTERM's drain that long.
 */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
/**
 * An answer whose client has taken none of its bytes for this long, checked every READER_CHECK_MS,
 * is cut (listener/stalled-answers.ts). Bytes taken are read in the kernel too (listener/tcp-send-queue.ts):
 * the process alone cannot tell a slow reader from a stalled one. 25 s is over twice the longest gap
 * between acknowledgements measured for a steady 16 KiB/s reader; off Linux such a reader may be cut.
 */
export const READER_STALL_MS = 25_000;
export const READER_CHECK_MS = 5_000;
/**
 * Past this many open connections new ones are closed at once. The API's listener adds its
 * `--max-waiting`, so held long polls never take the places of the requests being answered.
 */
export const MAX_CONNECTIONS = 1_000;

export function limitConnections(server: HttpServer | HttpsServer, tls: boolean, maxConnections: number): void {
  server.maxConnections = maxConnections;
  if (tls) {
    // A handshake that failed or timed out leaves no channel to answer on: Node hands it to the
    // 'clientError' handler, whose HTTP answer would wait in the socket for a handshake that
    // never comes. Close it (after that handler, which runs first).
    server.on('tlsClientError', (_error: Error, socket: Socket) => socket.destroy());
  }
  const stalled = createStalledAnswers({ stallMs: READER_STALL_MS, checkMs: READER_CHECK_MS });
  // Before the handler (the first listener), which may end the response at once. From
  // 'prefinish' on (end() called, the whole body handed to the socket) only the client's
  // reading moves the answer.
  // One listener function each for every response, no closure per request: each event comes
  // once per response, and watching an answer watched already does nothing.
  function watchWhole(this: ServerResponse): void {
    stalled.watch(this);
  }
  // An answer sent in slices (listener/sliced-write.ts) is watched from its first, with more to come.
  function watchSliced(this: ServerResponse): void {
    stalled.watch(this, 'until-finished');
  }
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    response.on('prefinish', watchWhole);
    response.on(SENDING_IN_SLICES, watchSliced);
  });
}
