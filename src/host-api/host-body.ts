import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { isRecord } from '../json-record.js';

/** A JSON body at most 1 MiB (docs/host-api.md#errors). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
/** An import's JSON Lines at most 64 MiB, read as they stream in (host-import.ts). */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

export const NDJSON_TYPES = ['application/x-ndjson', 'application/jsonl'];

/** True when the request's body is sent as JSON Lines, an import's (its limit is MAX_IMPORT_BYTES). */
export function isImportBody(request: FastifyRequest): boolean {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return NDJSON_TYPES.includes(type);
}

/** An import body: the request's stream, handed over unread. */
export interface StreamedBody {
  readonly stream: Readable;
}

function isStreamedBody(body: unknown): body is StreamedBody {
  return typeof body === 'object' && body !== null && 'stream' in body;
}

/** What a body's `400 bad_request` says, here and in the document's examples (host-openapi-answers.ts). */
export const BODY_FAULTS = {
  notUtf8: 'The body is not UTF-8 text.',
  notJson: 'The body is not JSON.',
  missing: 'The body is missing: send a JSON object.',
  notSentAsJson: 'The body must be JSON, sent as Content-Type: application/json.',
  notSentAsJsonLines: 'The import is JSON Lines, sent as Content-Type: application/x-ndjson.',
} as const;

/** The refusal of a body that is not UTF-8, whole (JSON) or as it streams in (an import). */
export const notUtf8 = () => new AppError('bad_request', BODY_FAULTS.notUtf8);

/** A body's bytes as text: UTF-8 only, never a guess (a bad byte is refused, not kept as U+FFFD). */
export function utf8Text(bytes: Buffer): string {
  // One native pass to check, one to decode: no decoder object per request.
  if (!isUtf8(bytes)) throw notUtf8();
  return bytes.toString('utf8');
}

/** The charset a Content-Type declares, when it declares one. */
function declaredCharset(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/** A body that declares a charset declares UTF-8: another is refused rather than misread. */
function checkCharset(request: FastifyRequest): void {
  const charset = declaredCharset(request.headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError('bad_request', `The body must be UTF-8: charset=${charset.slice(0, 40)} is not read.`);
  }
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('bad_request', BODY_FAULTS.notJson);
  }
}

/**
 * JSON bodies parsed by the service's own parser, so that one that is not JSON is the
 * contract's `400 bad_request` (Fastify's own would say so in its words), as is one that is not
 * UTF-8 or declares another charset; JSON Lines left as a stream for the import; any other type
 * refused with the same 400 before it is read.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    try {
      checkCharset(request);
      const text = utf8Text(bytes as Buffer);
      // An empty body is no body: a POST whose fields are all optional may send none.
      if (text === '') return done(null, undefined);
      done(null, parsedJson(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser(NDJSON_TYPES, (request, payload, done) => {
    try {
      checkCharset(request);
      done(null, { stream: payload });
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('*', (_request, _payload, done) =>
    done(new AppError('bad_request', BODY_FAULTS.notSentAsJson), undefined),
  );
}

/**
 * The JSON a request sent as its body: `{}` for none when it is `optional`, else a 400, as is one
 * sent as JSON Lines (the import's type).
 */
export function sentJson(request: FastifyRequest, optional: boolean): unknown {
  const { body } = request;
  if (isStreamedBody(body)) throw new AppError('bad_request', BODY_FAULTS.notSentAsJson);
  if (body === undefined && optional) return {};
  if (body === undefined) throw new AppError('bad_request', BODY_FAULTS.missing);
  return body;
}

/** A JSON body that must be an object, whose fields its reader checks (a meal record's parser); else a 422. */
export function jsonObjectBody(request: FastifyRequest): Readonly<Record<string, unknown>> {
  const body = sentJson(request, false);
  if (!isRecord(body) || Array.isArray(body)) throw new AppError('invalid_record', 'The body must be a JSON object.');
  return body;
}

/** The import's body stream, or a 400 when it came as something else than JSON Lines. */
export function streamedBody(request: FastifyRequest): Readable {
  if (!isStreamedBody(request.body)) {
    throw new AppError('bad_request', BODY_FAULTS.notSentAsJsonLines);
  }
  return request.body.stream;
}
