import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { createStalledAnswers } from './stalled-answers.js';

/**
 * What one connection may hold of the process, beside the request limits of CONTRACT.md
 * section 1 (headers within 10 s, a whole request within 30 s) that SERVER_LIMITS sets:
 *
 * - TLS_HANDSHAKE_TIMEOUT_MS: a TLS handshake gets the same 10 s as the headers (Node's
 *   default is 120 s, which also held SIGTERM's drain that long).
 * - READER_STALL_MS: an answer whose client stops reading holds what the kernel has not taken
 *   of its body in the process (a first-sync page is ~1.6 MB, its ciphertext as much again,
 *   pages of long descriptions ten times that) for as long as the socket lives; Node bounds
 *   none of that. From 'prefinish' (the whole body handed to the socket) to 'finish' (all of it
 *   in the kernel), the connection is destroyed once its client has taken none of its bytes for
 *   READER_STALL_MS, checked every READER_CHECK_MS: 25 to 30 s after its last byte
 *   (http/stalled-answers.ts). What the client takes is seen in what is left of the answer in
 *   the process (the socket's buffer, libuv's queue) and in the kernel, sent but not yet
 *   acknowledged by the client (Linux's /proc/net/tcp, http/tcp-send-queue.ts).
 *
 *   The process alone cannot tell a slow reader from a stalled one (issue 17, item 1). The
 *   kernel's send buffer (up to 4 MB, net.ipv4.tcp_wmem) wakes the writing process only once a
 *   third of it is free: a client reading steadily at 64 KiB/s took nothing from the process
 *   for over 10 s, at 16 KiB/s for about 60 s. Node's socket timer, used here before, saw even
 *   less over TLS: it waits for the handle's writeQueueSize to move, and a TLSWrap's does not
 *   move during a write, which after 'prefinish' is the whole rest of the body. Both cut steady
 *   readers 5 to 10 s in. The kernel sees every acknowledgement, but in steps of the client's
 *   receive window, a segment or more: on loopback (64 KiB segments) a TLS client at 16 KiB/s
 *   was acknowledged ~170 KB at a time, about every 10 to 11 s, and on a loaded machine (CI,
 *   load average 4 to 10 on 2 cores) a plain-HTTP client at 16 KiB/s once went 15 s without
 *   an acknowledgement. So the bound is 25 s, not the 10 s after which CONTRACT.md section 1
 *   allows the cut: more than twice the longest gap seen, so that a client that keeps reading
 *   at 16 KiB/s or more is never cut. Where /proc cannot be read (not Linux) only the process is
 *   looked at, and a reader that slow may be cut.
 * - MAX_CONNECTIONS: past this many open connections new ones are closed at once; with the
 *   two bounds above, what all of them hold together is bounded. The API's listener adds its
 *   `--max-waiting` to it: a held long poll keeps its connection, and still counts against
 *   the cap, without taking one of the places left for the requests being answered.
 */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
export const READER_STALL_MS = 25_000;
export const READER_CHECK_MS = 5_000;
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
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    response.once('prefinish', () => stalled.watch(response));
  });
}
