import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * Checks a real answer of the service against the OpenAPI document it serves: the status is one
 * the operation describes, every header it sends is described for that answer and matches its
 * schema, every header described as required is there, and the body matches the content's
 * schema (or is empty for a HEAD and for an answer without content). Schemas are checked with
 * Ajv's JSON Schema 2020-12, the dialect of OpenAPI 3.1.
 */

/**
 * Headers of the transport, not of the API: HTTP/1.1 framing and the connection (RFC 9110
 * section 6.6.1 Date, RFC 9112 Content-Length, Transfer-Encoding, Connection, Keep-Alive).
 * Content-Type is not here: it is checked against the media types of the answer's content.
 */
export const TRANSPORT_HEADERS: readonly string[] = [
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
];

/** Where an answer belongs in the document: an operation, or the answers of no operation. */
export type AnswerPlace = { readonly method: string; readonly path: string } | 'without-operation';

export interface CheckedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body, decompressed, as text ('' when none). */
  readonly text: string;
}

interface HeaderObject {
  readonly required?: boolean;
  readonly schema: Readonly<Record<string, unknown>>;
}

interface ResponseObject {
  readonly headers?: Readonly<Record<string, HeaderObject>>;
  readonly content?: Readonly<Record<string, unknown>>;
}

type Document = Readonly<Record<string, unknown>>;

const DOCUMENT_ID = 'urn:meal-export:openapi';
// The keys of an OpenAPI document that are no JSON Schema keyword (Ajv's strict mode refuses
// unknown keywords): the document is added whole, so that every $ref resolves as in the document.
const OPENAPI_KEYS = ['openapi', 'info', 'servers', 'tags', 'paths', 'webhooks', 'components', 'security'];

const pointerPart = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');

export interface AnswerChecker {
  /** The problems of `answer` (none: it matches the document). */
  problems(place: AnswerPlace, method: string, answer: CheckedAnswer): string[];
}

export function createAnswerChecker(document: Document): AnswerChecker {
  const ajv = new Ajv2020({ allErrors: true });
  for (const key of Object.keys(document)) {
    if (OPENAPI_KEYS.includes(key) || key.startsWith('x-')) ajv.addKeyword(key);
  }
  // RFC 3339 date-time, as format asks; the schemas' patterns pin the exact form.
  ajv.addFormat('date-time', (text: string) => !Number.isNaN(Date.parse(text)));
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    let validate = validators.get(pointer);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };
  const errorsOf = (validate: ValidateFunction) =>
    (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`).join('; ');

  /** The response object and its JSON pointer, or why there is none. */
  function responseFor(place: AnswerPlace, status: number): { at: string; response: ResponseObject } | string {
    const base =
      place === 'without-operation'
        ? '/x-responses-without-operation'
        : `/paths/${pointerPart(place.path)}/${place.method.toLowerCase()}/responses`;
    const responses = resolve(document, base) as Record<string, ResponseObject> | undefined;
    if (responses === undefined) return `the document has nothing at ${base}`;
    for (const code of [String(status), `${String(status)[0]}XX`, 'default']) {
      const response = responses[code];
      if (response !== undefined) return { at: `${base}/${code}`, response };
    }
    return `${base} describes no ${status} answer`;
  }

  return {
    problems(place, method, answer) {
      const found = responseFor(place, answer.status);
      if (typeof found === 'string') return [found];
      const { at, response } = found;
      const problems: string[] = [];
      const described = new Map(Object.keys(response.headers ?? {}).map((name) => [name.toLowerCase(), name]));

      for (const [lowerName, name] of described) {
        if (response.headers?.[name]?.required === true && answer.headers[lowerName] === undefined) {
          problems.push(`${at}: the required header ${name} is missing`);
        }
      }
      for (const [lowerName, raw] of Object.entries(answer.headers)) {
        if (raw === undefined || TRANSPORT_HEADERS.includes(lowerName) || lowerName === 'content-type') continue;
        const name = described.get(lowerName);
        if (name === undefined) {
          problems.push(`${at}: the header ${lowerName} is sent but not described`);
          continue;
        }
        const value = Array.isArray(raw) ? raw.join(', ') : raw;
        const schema = response.headers?.[name]?.schema ?? {};
        const numeric = (schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(value);
        const validate = validatorAt(`${at}/headers/${pointerPart(name)}/schema`);
        if (!validate(numeric ? Number(value) : value)) {
          problems.push(`${at}: the header ${name}: ${JSON.stringify(value)}: ${errorsOf(validate)}`);
        }
      }

      // A HEAD's answer has the media type its GET's would have, and no body.
      const contentAt =
        method === 'HEAD' && place !== 'without-operation'
          ? responseFor({ ...place, method: 'GET' }, answer.status)
          : found;
      const content = typeof contentAt === 'string' ? undefined : contentAt.response.content;
      const mediaType =
        String(answer.headers['content-type'] ?? '')
          .split(';')[0]
          ?.trim() ?? '';
      if (content === undefined) {
        if (answer.headers['content-type'] !== undefined)
          problems.push(`${at}: a Content-Type, but no content described`);
      } else if (!(mediaType in content)) {
        problems.push(`${at}: Content-Type ${mediaType || '(none)'} is none of ${Object.keys(content).join(', ')}`);
      }
      if (method === 'HEAD' || content === undefined) {
        if (answer.text !== '') problems.push(`${at}: a body where none is described`);
        return problems;
      }
      if (typeof contentAt === 'string' || !(mediaType in content)) return problems;
      let body: unknown;
      try {
        body = JSON.parse(answer.text);
      } catch {
        return [...problems, `${at}: the body is not JSON: ${answer.text.slice(0, 100)}`];
      }
      const validate = validatorAt(`${contentAt.at}/content/${pointerPart(mediaType)}/schema`);
      if (!validate(body)) problems.push(`${at}: the body: ${errorsOf(validate)}`);
      return problems;
    },
  };
}

/** The value at a JSON pointer of `root`. */
function resolve(root: unknown, pointer: string): unknown {
  let value = root;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}
