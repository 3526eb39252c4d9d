import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type Readable, Transform } from 'node:stream';
import { AppError } from '../errors.js';

/**
 * What a listener with request bodies (the host API) does between the socket and the body's
 * reader, so that a body that goes wrong is still answered in words a client can read:
 * - a body that stops arriving is cut when Node's 30 s request bound passes (its request
 *   timeout, which only reaches a request whose body is not complete), and the request is
 *   answered `408 request_timeout` before the connection closes, instead of closing without
 *   a word;
 * - the reader reads a stream of its own, never the request itself: a reader that stops early
 *   (a body over its limit, a bad line) would otherwise destroy the request and the socket
 *   with it, and the client, still sending, would never read the answer;
 * - after a `413`, the rest of the body is read and dropped (until it has reached its limit and
 *   16 MiB more, within the same 30 s) before the connection closes, as nginx's lingering close
 *   does, so that a client that sends its whole body before reading (Python's urllib) reads it.
 */

/** How much of a refused body is read and dropped after its answer (docs/host-api.md#errors). */
export const LINGER_BYTES = 16 * 1024 * 1024;

/** The body in flight on a socket, cut at once by cutStalledBody. */
const inFlight = new WeakMap<Socket, () => void>();

/** Makes `cut` the socket's body in flight; the function returned forgets it, if it is still that one. */
function holdInFlight(socket: Socket, cut: () => void): () => void {
  inFlight.set(socket, cut);
  return () => {
    if (inFlight.get(socket) === cut) inFlight.delete(socket);
  };
}
/** How many bytes of each guarded request's body have passed so far. */
const bytesPassed = new WeakMap<IncomingMessage, number>();

export function requestTimeoutError(): AppError {
  return new AppError('request_timeout', 'The body did not arrive within 30 s: send it whole, then read the answer.', {
    headers: { connection: 'close' },
  });
}

/** True when the request announces a body (a length above 0, or chunks). */
export function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/**
 * What a body's reader reads (a Fastify preParsing hook returns it). A `streamed` body (an
 * import, read as it comes by code that may stop early) gets a stream of its own, through which
 * its bytes are counted; an end of the request before the body's end (the client left) is an
 * error of that stream, as it is of the request. A body read whole by the framework (JSON up to
 * its limit) is read from the request itself, with no stream between: the cut then comes as an
 * error of the request, which the framework's reader takes as its failure.
 */
export function guardedBody(request: IncomingMessage, payload: Readable, streamed: boolean): Readable {
  return streamed ? streamedBody(request, payload) : readWhole(request, payload);
}

/** A body the framework reads whole from the request: cut by an error of the request. */
function readWhole(request: IncomingMessage, payload: Readable): Readable {
  const { socket } = request;
  const forget = holdInFlight(socket, () => {
    forget();
    // Only a reader that listens can answer; without one there is no answer to give.
    if (payload.listenerCount('error') > 0) payload.emit('error', requestTimeoutError());
    else socket.destroy();
  });
  payload.once('end', forget);
  return payload;
}

/** A body read as it streams in, through a stream of its own that counts its bytes. */
function streamedBody(request: IncomingMessage, payload: Readable): Readable {
  bytesPassed.set(request, 0);
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytesPassed.set(request, (bytesPassed.get(request) ?? 0) + chunk.length);
      done(null, chunk);
    },
  });
  const forget = holdInFlight(request.socket, () => {
    forget();
    payload.unpipe(body);
    body.destroy(requestTimeoutError());
  });
  // Its reader hears of an error by reading; one that never reads (a body refused before it is
  // read) must not make the error an uncaught one.
  body.on('error', () => undefined);
  payload.pipe(body);
  payload.once('end', forget);
  // pipe() forwards no errors: a client that left must not leave the reader waiting.
  const left = (error?: Error) => {
    forget();
    if (!body.destroyed && !request.complete) body.destroy(error ?? new Error('the client left before the body ended'));
  };
  payload.once('error', left);
  request.once('close', () => left());
  return body;
}

/**
 * Called for a request that Node's request timeout reached: true when its body was in flight
 * through guardedBody, which is then cut so that the request is answered 408; false when
 * nothing will answer it (headers that never ended), and the socket is the caller's to close.
 */
export function cutStalledBody(socket: Socket): boolean {
  const cut = inFlight.get(socket);
  if (cut === undefined) return false;
  cut();
  return true;
}

/**
 * The rest of a body refused as too large (413), read and dropped after its answer, until the
 * body has reached `limit` and `LINGER_BYTES` more, as nginx's lingering close does: a client
 * that sends its whole body before it reads then finishes sending and reads the answer, instead
 * of a reset. Node would close the connection as soon as the answer is out (Fastify asks it to,
 * and so does a client's `Connection: close`): it is kept until the rest is in, then closed if
 * the client asked for that, else left open for its next request. Past the budget, or when the
 * request bound passes, the connection is cut. Call it before the answer is sent.
 */
export function dropRestAfterAnswer(request: IncomingMessage, response: ServerResponse, limit: number): void {
  if (request.complete || request.destroyed) return;
  const { socket } = request;
  const closeAfter = !response.shouldKeepAlive;
  response.shouldKeepAlive = true;
  // Whatever read the body stops now: the rest goes nowhere.
  request.unpipe();
  // A body read by the framework was read up to its limit, unless its length alone refused it.
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  const read = bytesPassed.get(request) ?? (declared > limit ? 0 : limit);
  let budget = limit + LINGER_BYTES - read;
  const cut = () => {
    done();
    socket.destroy();
  };
  // The request bound passing while the rest is dropped ends the connection.
  const forget = holdInFlight(socket, cut);
  const done = () => {
    request.off('data', onData);
    forget();
  };
  const onData = (chunk: Buffer) => {
    budget -= chunk.length;
    if (budget < 0) cut();
  };
  request.on('data', onData);
  request.once('end', () => {
    done();
    if (closeAfter) socket.end();
  });
  request.once('close', done);
  request.resume();
}
