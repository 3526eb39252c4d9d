import type { Socket } from 'node:net';
import { AppError } from '../errors.js';
import { cutStalledBody } from './body-guard.js';
import { errorAnswerBytes } from './error-answer.js';

const MAX_REQUEST_LINE_BYTES = 8 * 1024;

interface ParserError extends Error {
  readonly code?: string;
  readonly rawPacket?: Buffer;
}

/**
 * Whether the parser overflowed inside the request line. `rawPacket` is only the chunk being
 * parsed: when it holds no line end, or its first line is the end of a request line
 * (`… HTTP/1.1`) that began in an earlier chunk or is itself past 8 KiB, the URL is too long.
 */
function isRequestLineTooLong(packet: Buffer | undefined): boolean {
  const lineEnd = packet?.indexOf('\r\n') ?? -1;
  if (packet === undefined || lineEnd < 0) return true;
  const firstLine = packet.subarray(0, lineEnd).toString('latin1');
  if (!/ HTTP\/\d\.\d$/.test(firstLine)) return false;
  const startsTheRequest = /^[A-Z]+ /.test(firstLine);
  return !startsTheRequest || lineEnd > MAX_REQUEST_LINE_BYTES;
}

/** The contract's error for what the parser refused. */
function refusalOf(error: ParserError): AppError {
  if (error.code !== 'HPE_HEADER_OVERFLOW') return new AppError('bad_request', 'The request is malformed.');
  return isRequestLineTooLong(error.rawPacket)
    ? new AppError('request_too_large', 'The URL is longer than 8 KiB.', { status: 414 })
    : new AppError('request_too_large', 'The request headers are larger than 16 KiB.', { status: 431 });
}

/**
 * Answers what Node's HTTP parser refuses before any route sees it (docs/errors.md):
 * headers past the parser's limit are 431 (414 when the request line alone is past 8 KiB),
 * anything else malformed is 400 bad_request, as JSON with the usual headers. A request whose
 * body stalled is answered 408 by its listener (listener/body-guard.ts); other timeouts and resets
 * just close the connection: slow clients are cut off.
 */
export function createClientErrorHandler(tls: boolean) {
  return function onClientError(error: ParserError, socket: Socket): void {
    // Bytes after a complete request on a `Connection: close` connection (a client that sent a
    // body the framing did not announce): the request itself is answered, the rest ignored,
    // and the connection closes after that answer.
    if (error.code === 'HPE_CLOSED_CONNECTION') return;
    // The parser fails again on the bytes that follow its first error (a client still sending
    // past the 64 KiB limit): that first error is being answered, and destroying the socket
    // now would throw the answer away.
    if (socket.writableEnded) return;
    // A body in flight past the request bound is cut and its request answered 408 (listener/body-guard.ts).
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.writable && cutStalledBody(socket)) return;
    if (!socket.writable || error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.destroy();
      return;
    }
    socket.end(errorAnswerBytes(refusalOf(error), tls));
  };
}
