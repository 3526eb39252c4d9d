import { type ErrorCode, errorBody } from '../errors.js';
import { COMMON_HEADERS, type Headers } from './headers.js';

/**
 * The answers of both OpenAPI documents (the public one, docs/api.md#the-openapi-document, and
 * the host API's, docs/host-api.md), status by status, each with its headers and an example. A
 * HEAD's answers are its GET's without the content: one builder makes both, so the two cannot
 * differ.
 */
export interface Example {
  readonly summary: string;
  readonly value: unknown;
}

export interface Answer {
  readonly description: string;
  /** The component schema of the body: by name, or the component itself, which its document collects. */
  readonly schema: string | Component;
  readonly headers: Headers;
  readonly examples: Readonly<Record<string, Example>>;
}

export type Responses = Record<string, object>;

/** An error body as the service renders it (errors.ts), as an example; its summary names it. */
export function errorExample(code: ErrorCode, message: string, param?: string, summary: string = code): Example {
  return { summary, value: JSON.parse(errorBody(code, message, param)) };
}

function responseOf(answer: Answer, withBody: boolean): object {
  return {
    description: answer.description,
    headers: answer.headers,
    ...(withBody
      ? {
          content: {
            'application/json': {
              schema: componentRef(answer.schema),
              examples: answer.examples,
            },
          },
        }
      : {}),
  };
}

export function responsesOf(answers: Readonly<Record<string, Answer>>, withBody: boolean): Responses {
  return Object.fromEntries(Object.entries(answers).map(([status, answer]) => [status, responseOf(answer, withBody)]));
}

export const error = (description: string, headers: Headers, ...examples: Example[]): Answer => ({
  description,
  schema: 'Error',
  headers: { ...COMMON_HEADERS, ...headers },
  // Named by their summaries, which differ within an answer.
  examples: Object.fromEntries(examples.map((example) => [example.summary, example])),
});

export const BAD_REQUEST = errorExample('bad_request', 'The request is malformed.');
export const HEADERS_TOO_LARGE = error(
  'request_too_large: the request headers are over 16 KiB.',
  {},
  errorExample('request_too_large', 'The request headers are larger than 16 KiB.'),
);
export const INTERNAL_ERROR = (headers: Headers) =>
  error(
    'internal_error: a bug of the service; nothing of its internals is in the body.',
    headers,
    errorExample('internal_error', 'Internal server error.'),
  );

/**
 * A component schema of a document, with its name, by which answers and bodies refer to it
 * (`#/components/schemas/<name>`), and the components its schema refers to: a document's
 * components are collected from what its operations declare (collectComponents), never listed
 * by hand beside them.
 */
export interface Component {
  readonly name: string;
  readonly schema: object;
  readonly uses: readonly Component[];
}

export const componentRef = (component: Component | string) => ({
  $ref: `#/components/schemas/${typeof component === 'string' ? component : component.name}`,
});

export function component(name: string, schema: object, uses: readonly Component[] = []): Component {
  return { name, schema, uses };
}

/** The component of a list of `item`. */
export const listOf = (name: string, item: Component): Component =>
  component(name, { type: 'array', items: componentRef(item) }, [item]);

/**
 * The components `roots` refer to, and those they refer to in turn, by name, in the order first
 * met. Two different schemas under one name are a bug of the declarations.
 */
export function collectComponents(roots: readonly Component[]): Record<string, object> {
  const schemas: Record<string, object> = {};
  const visit = (found: Component): void => {
    const known = schemas[found.name];
    if (known !== undefined) {
      if (known !== found.schema) throw new Error(`two schemas are named ${found.name}`);
      return;
    }
    schemas[found.name] = found.schema;
    found.uses.forEach(visit);
  };
  roots.forEach(visit);
  return schemas;
}
