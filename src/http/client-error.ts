import type { Socket } from 'node:net';
import { type ErrorCode, errorBody } from '../errors.js';
import { commonHeaders, JSON_CONTENT_TYPE } from './json-response.js';

const MAX_REQUEST_LINE_BYTES = 8 * 1024;
const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

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

/**
 * Answers what Node's HTTP parser refuses before any route sees it (CONTRACT.md section 5):
 * headers past the parser's limit are 431 (414 when the request line alone is past 8 KiB),
 * anything else malformed is 400 bad_request, as JSON with the usual headers. Timeouts and
 * resets just close the connection: slow clients are cut off.
 */
export function createClientErrorHandler(tls: boolean) {
  const fixedHeaders = Object.entries(commonHeaders(tls))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');

  return function onClientError(error: ParserError, socket: Socket): void {
    // Bytes after a complete request on a `Connection: close` connection (a client that sent a
    // body the framing did not announce): the request itself is answered, the rest ignored,
    // and the connection closes after that answer.
    if (error.code === 'HPE_CLOSED_CONNECTION') return;
    if (!socket.writable || error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.destroy();
      return;
    }
    let status = 400;
    let code: ErrorCode = 'bad_request';
    let message = 'The request is malformed.';
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      const urlTooLong = isRequestLineTooLong(error.rawPacket);
      status = urlTooLong ? 414 : 431;
      code = 'request_too_large';
      message = urlTooLong ? 'The URL is longer than 8 KiB.' : 'The request headers are larger than 16 KiB.';
    }
    const body = errorBody(code, message);
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\ncontent-type: ${JSON_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${fixedHeaders}connection: close\r\n\r\n${body}`,
    );
  };
}
