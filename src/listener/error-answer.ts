import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { type AppError, errorBody } from '../errors.js';
import { commonHeaders, JSON_CONTENT_TYPE } from './json-response.js';

/** An error as the public listener answers it: status, its own headers, the JSON body. */
export interface ErrorAnswer {
  readonly status: number;
  /** The error's headers (Allow, Retry-After, WWW-Authenticate) and the JSON type. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * The one renderer of the service's errors (docs/errors.md): whoever answers (the front
 * door, Fastify's error handler, the /v1/meals endpoint, the socket of a request the parser
 * refused), the status, headers and body come from here. The writers below only differ in
 * what they write to.
 */
export function errorAnswer(error: AppError): ErrorAnswer {
  return {
    status: error.status,
    headers: { ...error.headers, 'content-type': JSON_CONTENT_TYPE },
    body: errorBody(error.code, error.message, error.param, error.line),
  };
}

/** Answers an error on a Node response, with the headers every response carries (section 1). */
export function writeErrorAnswer(response: ServerResponse, error: AppError, tls: boolean): void {
  const answer = errorAnswer(error);
  response.writeHead(answer.status, {
    ...commonHeaders(tls),
    ...answer.headers,
    'content-length': String(Buffer.byteLength(answer.body)),
  });
  response.end(answer.body);
}

/** Answers an error through Fastify (its routes' failures); the front door set the common headers. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  const answer = errorAnswer(error);
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}

/**
 * The bytes of an error answer for a bare socket, which no HTTP response object wraps any more
 * (a request the parser refused, a CONNECT): the connection closes after it.
 */
export function errorAnswerBytes(error: AppError, tls: boolean): string {
  const answer = errorAnswer(error);
  const headers = {
    ...commonHeaders(tls),
    ...answer.headers,
    'content-length': String(Buffer.byteLength(answer.body)),
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n${lines.join('')}\r\n${answer.body}`;
}
