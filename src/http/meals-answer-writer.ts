import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { formatInstant } from '../domain/instant.js';
import { MEALS_DIGEST, MEALS_LAST_MODIFIED } from '../domain/meal-page.js';
import { COMPRESSION_THRESHOLD, compressBody, negotiateEncoding } from './compression.js';
import { errorAnswer } from '../listener/error-answer.js';
import { failureOf } from '../listener/failure.js';
import { JSON_CONTENT_TYPE } from '../listener/json-response.js';
import type { PageAnswer } from './meals-page-reader.js';
import type { RequestReport } from '../listener/request-report.js';
import { SLICE_BYTES, writeInSlices } from '../listener/sliced-write.js';

/** Response headers as Node's writeHead takes them flat: name, value, name, value… (no object per request). */
export type FlatHeaders = string[];

/** What `answer` leaves to the held requests: the request is held, its answer comes later. */
export const HELD = Symbol('held');

/** A page to send, HELD, or undefined when the client left before its page was read. */
export type MealsAnswer = PageAnswer | typeof HELD | undefined;

/** Writes an answer (or the error it became) and reports it. */
export type SendMealsAnswer = (
  request: IncomingMessage,
  response: ServerResponse,
  headers: FlatHeaders,
  started: number,
  compute: () => Promise<MealsAnswer>,
) => Promise<void>;

/** `report`: logs and counts each answer (undefined: neither is wanted). */
export function createMealsAnswerWriter(log: FastifyBaseLogger, report: RequestReport | undefined): SendMealsAnswer {
  return async function send(request, response, headers, started, compute) {
    let status = 200;
    let body: readonly Buffer[];
    try {
      const page = await compute();
      if (page === undefined || page === HELD) return;
      // Pushed only here, once per answer: a held request's headers are those of its acceptance,
      // and its clock is that of the page it is finally answered with.
      if (page.newestChangeAt !== undefined) headers.push(MEALS_LAST_MODIFIED, formatInstant(page.newestChangeAt));
      if (page.digest !== undefined) headers.push(MEALS_DIGEST, page.digest);
      headers.push('content-type', JSON_CONTENT_TYPE);
      body = page.body;
    } catch (error) {
      // The one renderer of errors (listener/error-answer.ts), after the rate-limit headers.
      const failure = errorAnswer(failureOf(error, log));
      status = failure.status;
      for (const [name, value] of Object.entries(failure.headers)) headers.push(name, value);
      body = [Buffer.from(failure.body)];
    }
    try {
      await writeBody(request, response, status, headers, body);
    } catch (error) {
      // Only writing can fail here (compression, a socket gone): nothing more can be sent.
      log.error({ err: error }, 'could not send the response');
      response.destroy();
      return;
    }
    if (report === undefined) return;
    // No status when the client left before its answer was written.
    const answered = response.headersSent ? response.statusCode : null;
    report(log, request.method, request.url ?? '', answered, performance.now() - started);
  };
}

/**
 * Sends a JSON body given as parts: compressed as one when Accept-Encoding asks and it is
 * large enough, otherwise the parts in one corked write (one TLS write), or in slices when
 * they are large (listener/sliced-write.ts).
 * A HEAD gets the headers GET would get and no body.
 */
async function writeBody(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  headers: FlatHeaders,
  parts: readonly Buffer[],
): Promise<void> {
  let length = 0;
  for (const part of parts) length += part.length;
  const encoding = length >= COMPRESSION_THRESHOLD ? negotiateEncoding(request.headers['accept-encoding']) : undefined;
  if (encoding === undefined) {
    headers.push('content-length', String(length));
    response.writeHead(status, headers);
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    if (length > SLICE_BYTES) {
      await writeInSlices(response, parts);
      return;
    }
    response.cork();
    for (const part of parts) response.write(part);
    response.end();
    return;
  }
  headers.push('content-encoding', encoding, 'vary', 'accept-encoding');
  if (request.method === 'HEAD') {
    // The compressed length is not worked out for a HEAD: it is optional there (RFC 9110 section 8.6).
    response.writeHead(status, headers);
    response.end();
    return;
  }
  const compressed = await compressBody(Buffer.concat(parts, length), encoding);
  headers.push('content-length', String(compressed.length));
  response.writeHead(status, headers);
  response.end(compressed);
}
