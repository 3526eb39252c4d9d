import type { FastifyRequest } from 'fastify';
import type { AppError } from '../errors.js';
import type { Answer, Component, Example } from '../openapi/answers.js';
import type { Storage } from '../storage/storage.js';
import type { BodyOf, ObjectBodyDeclaration, ObjectSchema } from './host-body-schema.js';
import type { ImportStore } from './host-import.js';

/**
 * The host API as a table of resources (docs/host-api.md): each path declares its parameters,
 * and each method its query, its body, its own answers with their examples and its handler.
 * Both the checks a request meets (host-app.ts, host-resource.ts) and the OpenAPI document
 * (host-openapi.ts) are made from these declarations, so the two cannot tell different stories.
 */

/**
 * What a handler answers: the body, a JSON value or JSON text made already. Its status is the
 * one success its operation declares (successStatusOf), so that the two cannot differ.
 */
export type HostAnswer = { readonly body: unknown } | { readonly raw: string };

export type HostMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** What every handler may use: the store and the listener's settings. */
export interface HostRoutesDeps {
  readonly storage: Storage;
  /** Where imports write (host-import.ts). */
  readonly imports: ImportStore;
  /** `--public-url`: the origin of sign-in links; else the one the app page recorded when it started. */
  readonly publicUrl: string | undefined;
  /** The OpenAPI document's JSON text, made once (host-openapi.ts). */
  readonly openApiJson: string;
}

/** A `{name}` of a path: documented and checked from here. */
export interface PathParameter<Name extends string = string> {
  readonly name: Name;
  readonly description: string;
  readonly schema: object;
  readonly example: string;
  /**
   * The refusal of a value that breaks the id's rule, with the example the document shows of it;
   * none when any text is an id (an unknown one is then a 404 of the store's).
   */
  readonly rule?: { readonly fault: (value: string) => AppError | undefined; readonly example: Example };
}

/** A query parameter: documented, read and refused from here. */
export interface QueryParameter<T> {
  readonly name: string;
  readonly description: string;
  readonly schema: object;
  readonly example: unknown;
  /** Its value, or the `400 invalid_parameter` naming it. */
  readonly parse: (text: string) => T | AppError;
  /** What the 400 says of it, and the example of that answer. */
  readonly fault: string;
  readonly faultExample: Example;
}

/** What a method reads as its body: none, a JSON object, or the import's JSON Lines. */
export type BodyDeclaration =
  /** A JSON object checked by its component schema, its fields' rules included (host-body-schema.ts). */
  | ObjectBodyDeclaration<ObjectSchema>
  | {
      /** A meal record, whose fields the record parser checks (meal-host/host-meal-operations.ts). */
      readonly kind: 'record';
      readonly component: Component;
      readonly examples: Readonly<Record<string, Example>>;
    }
  | {
      readonly kind: 'json-lines';
      /** The request body's content, by media type. */
      readonly content: object;
      /** The components its content refers to. */
      readonly uses: readonly Component[];
      /** The 413 of a body over its limit. */
      readonly tooLarge: Answer;
    };

/**
 * One request as a handler sees it: its ids (checked), its query (parsed) and its body (checked);
 * `Id` the names of its path's ids, so that a handler asks for no id its path lacks.
 */
export interface HostCall<Id extends string = string> {
  readonly request: FastifyRequest;
  /** A `{name}` of the path, percent-decoded (`a%2Fb` is the id `a/b`). */
  id(name: Id): string;
  /** A query parameter the method declares; undefined when not given. */
  query<T>(parameter: QueryParameter<T>): T | undefined;
  /** The JSON object of an `object` or `record` body; `{}` for the others. */
  readonly body: Readonly<Record<string, unknown>>;
  /** The `object` body the method declares, checked by `declared`'s schema, typed by it. */
  bodyOf<S extends ObjectSchema>(declared: ObjectBodyDeclaration<S>): BodyOf<S>;
}

export interface HostOperation<Id extends string = string> {
  readonly operationId: string;
  /** A GET's HEAD: the same answers without their bodies. */
  readonly headId?: string;
  readonly summary: string;
  readonly description: string;
  readonly query?: readonly QueryParameter<unknown>[];
  readonly body?: BodyDeclaration;
  /**
   * Its own answers (success, 404, 409, 422, …). The 400 of its ids, query and body, the 413
   * of its body and the refusals every request may meet are made beside them
   * (host-openapi-operations.ts).
   */
  readonly answers: Readonly<Record<string, Answer>>;
  readonly handle: (call: HostCall<Id>, deps: HostRoutesDeps) => Promise<HostAnswer>;
}

export interface HostResource<Id extends string = string> {
  /** As the document writes it: `/host/v1/users/{userId}/meals/{mealId}`. */
  readonly path: string;
  readonly tag: string;
  readonly description: string;
  readonly parameters: readonly PathParameter<Id>[];
  readonly operations: Partial<Record<HostMethod, HostOperation<Id>>>;
  /** False for the document itself and the health check, open without a token. */
  readonly authenticated?: false;
  /**
   * Another resource whose methods this path answers too, for the id its path spells out: the
   * import's path is also the meal whose id is `import`. Those methods are that resource's in
   * the document.
   */
  readonly alsoAnswers?: { readonly resource: HostResource; readonly ids: Readonly<Record<string, string>> };
}

/**
 * A resource as declared: its handlers' ids typed by the names of its `parameters`, so that
 * `call.id('mealId')` on a path without `{mealId}` does not compile.
 */
export function hostResource<const Id extends string = never>(resource: HostResource<Id>): HostResource {
  return resource;
}

/** Every method a resource's path answers: its own, and those it answers for another resource. */
export function answeredOperations(resource: HostResource): Partial<Record<HostMethod, HostOperation>> {
  return { ...resource.alsoAnswers?.resource.operations, ...resource.operations };
}

/** What `Allow` lists for a resource: every method its path answers, HEAD beside GET. */
export function allowOf(resource: HostResource): string[] {
  return Object.keys(answeredOperations(resource)).flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
}

/**
 * The status a method's handler answers with: the one success (2xx) among its declared answers.
 * A method declaring none or several is a bug of the table, found when the routes are registered.
 */
export function successStatusOf(operation: HostOperation): number {
  const successes = Object.keys(operation.answers).filter((status) => /^2\d\d$/.test(status));
  const [status] = successes;
  if (successes.length !== 1 || status === undefined) {
    throw new Error(`${operation.operationId} declares ${successes.length} successes: it must declare one`);
  }
  return Number(status);
}
