import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';

export interface ConnectionDrain {
  /** Destroys what is left (the drain deadline has passed). */
  destroyAll(): void;
}

/** How long, once draining, a connection that has sent no request yet is given to send it. */
const FIRST_REQUEST_GRACE_MS = 2_000;

/**
 * Graceful shutdown that sends every response in flight in full (docs/operations.md#workers---workers-n).
 * Node's closeIdleConnections, which server.close() calls, takes a connection for idle once res.end()
 * was called, even with most of a large body still in the process, and destroys it; this replacement
 * ends one only once each of its responses is with the OS ('close' after 'finish'). A connection
 * opened before the listener closed but without its request yet (in its TLS handshake, bounded at
 * 10 s, or its request on the way) is not idle: it is served if its request comes within
 * FIRST_REQUEST_GRACE_MS, then ended. destroyAll destroys every one, handshakes too, at the deadline.
 */
export function trackConnections(server: HttpServer | HttpsServer, tls: boolean): ConnectionDrain {
  const inFlight = new Map<Socket, number>();
  // Connections that have not had a request yet.
  const fresh = new Set<Socket>();
  // TLS only: the raw sockets whose handshake is not over, by remote address and port (the
  // TLS socket Node makes of a raw one names it by no public property; the pair is unique).
  const handshaking = new Map<string, Socket>();
  let draining = false;
  const peerOf = (socket: Socket) => `${socket.remoteAddress} ${socket.remotePort}`;

  if (tls) {
    server.on('connection', (raw: Socket) => {
      const peer = peerOf(raw);
      handshaking.set(peer, raw);
      raw.once('close', () => {
        if (handshaking.get(peer) === raw) handshaking.delete(peer);
      });
    });
  }

  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    handshaking.delete(peerOf(socket));
    inFlight.set(socket, 0);
    fresh.add(socket);
    socket.once('close', () => {
      inFlight.delete(socket);
      fresh.delete(socket);
    });
  });
  // Before the handler (the first listener), which may answer at once: the header must be set first.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    fresh.delete(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    if (draining) response.setHeader('connection', 'close');
    response.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (draining && left === 0) socket.end();
    });
  });

  function endIdle(includeFresh: boolean): void {
    for (const [socket, count] of inFlight) {
      if (count === 0 && (includeFresh || !fresh.has(socket))) socket.end();
    }
  }

  // Ends every connection with no response in flight now, and every other one after its last.
  server.closeIdleConnections = () => {
    draining = true;
    endIdle(false);
    setTimeout(() => endIdle(true), FIRST_REQUEST_GRACE_MS).unref();
  };

  return {
    destroyAll() {
      for (const raw of handshaking.values()) raw.destroy();
      for (const socket of inFlight.keys()) socket.destroy();
    },
  };
}
