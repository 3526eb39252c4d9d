import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { AppError } from '../errors.js';
import { errorAnswerBytes } from './error-answer.js';

/** The first byte of every TLS connection: a handshake record (RFC 8446 section 5.1). */
const TLS_HANDSHAKE_RECORD = 0x16;

/** What a plain `http://` request to a TLS port is told, in the errors' JSON (docs/errors.md). */
export function plainHttpRefusal(): AppError {
  return new AppError('bad_request', 'This port speaks HTTPS only: send the request to https://, not http://.');
}

/**
 * Answers plain HTTP on a TLS listener as nginx does, a 400 in plain HTTP, then closes; without
 * this, OpenSSL reads the request as a broken handshake and the client sees an empty reply.
 * The TLS server's own 'connection' listener is moved behind a look at the first byte: a
 * handshake record goes to it with that byte put back. Call it before any other 'connection'
 * listener is added (the drain's sees the raw socket either way).
 */
export function refusePlainHttp(server: HttpsServer, firstByteTimeoutMs: number): void {
  const tlsListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    // Until the first byte, the TLS handshake's deadline is ours to keep.
    socket.setTimeout(firstByteTimeoutMs, () => socket.destroy());
    socket.on('error', onError);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      socket.off('error', onError);
      if (chunk[0] === TLS_HANDSHAKE_RECORD) {
        // The TLS socket reads what is buffered first (Node's _tls_wrap.js initRead).
        socket.unshift(chunk);
        for (const listener of tlsListeners) listener.call(server, socket);
        return;
      }
      socket.on('error', () => socket.destroy());
      socket.setTimeout(firstByteTimeoutMs, () => socket.destroy());
      socket.end(errorAnswerBytes(plainHttpRefusal(), false));
      // The rest of the request is read and dropped: closing with unread bytes would reset the
      // connection, and the client could lose the answer (RFC 9112 section 9.6).
      socket.resume();
    });
  });
  function onError(this: Socket): void {
    this.destroy();
  }
}
