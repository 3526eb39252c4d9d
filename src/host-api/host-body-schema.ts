import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { AppError } from '../errors.js';
import type { Example } from '../openapi/answers.js';

/**
 * A JSON body of the host API from its one JSON Schema (docs/host-api.md#errors): the schema the
 * document names for the body is compiled once and checks every request, each field's rules
 * included, and the type of what the handler reads is made from the same schema. Its refusals
 * are the contract's `422 invalid_record` naming the field (`param`), worded as the rest of
 * the service words them: the rule's own sentence, from the domain, where one is declared.
 */

/** The JSON Schema of an object body, `as const`, so that its fields' types can be read from it. */
export interface ObjectSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, object>>;
  readonly required?: readonly string[];
  readonly additionalProperties: false;
}

type TypeName = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'array' | 'object';

type ValueOfType<T, S> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? readonly (S extends { readonly items: infer I } ? ValueOf<I> : unknown)[]
          : T extends 'object'
            ? Readonly<Record<string, unknown>>
            : never;

/** The TypeScript type of a value a JSON Schema accepts: its `enum`, else its `type` (one or a list). */
export type ValueOf<S> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly type: infer T }
    ? T extends readonly TypeName[]
      ? ValueOfType<T[number], S>
      : ValueOfType<T, S>
    : unknown;

type RequiredOf<S extends ObjectSchema> = S['required'] extends readonly (infer R)[]
  ? R & keyof S['properties']
  : never;

/** The body an object schema accepts, field by field: required ones present, the others optional. */
export type BodyOf<S extends ObjectSchema> = {
  readonly [K in RequiredOf<S>]: ValueOf<S['properties'][K]>;
} & {
  readonly [K in Exclude<keyof S['properties'], RequiredOf<S>>]?: ValueOf<S['properties'][K]>;
};

/**
 * The sentence of a field's rule, from the domain code that holds it (the same words as the
 * command line's): given a value of the field's type that the schema refused.
 */
export type FieldFaults<S extends ObjectSchema> = {
  readonly [K in keyof S['properties']]?: (value: NonNullable<ValueOf<S['properties'][K]>>) => string | undefined;
};

export interface ObjectBodyDeclaration<S extends ObjectSchema> {
  readonly kind: 'object';
  /** The body's component schema in the document. */
  readonly component: string;
  readonly schema: S;
  /** False: no body at all is `{}`. */
  readonly required: boolean;
  readonly examples: Readonly<Record<string, Example>>;
  /** The body checked against the schema: the body, typed, or the `422 invalid_record` of its first fault. */
  readonly check: (body: unknown) => BodyOf<S>;
}

// One compiler for every body; formats are not asserted in 2020-12 (none of the bodies has one).
// allErrors: the fault named is chosen by the order below, not by the order Ajv finds them in.
const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true });

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'a JSON object',
};

/** `must be a string`, `must be an array of strings`: a field's type in words, from its schema. */
function typeWords(schema: object): string {
  const { type, items } = schema as { type?: string | readonly string[]; items?: object };
  const first = (Array.isArray(type) ? type : [type]).find((name) => name !== 'null') ?? 'string';
  if (first === 'array' && items !== undefined) return `an array of ${typeWords(items).replace(/^an? /, '')}s`;
  return TYPE_WORDS[first] ?? `a ${first}`;
}

/** The field an error is about: the first segment of its path (JSON Pointer), or a missing one. */
function fieldOf(error: ErrorObject): string | undefined {
  if (error.keyword === 'required') return (error.params as { missingProperty: string }).missingProperty;
  const segment = error.instancePath.split('/')[1];
  return segment?.replace(/~1/g, '/').replace(/~0/g, '~');
}

const invalid = (message: string, param?: string) =>
  new AppError('invalid_record', message, param === undefined ? {} : { param });

/**
 * The refusal of the first fault, in the order the host API has always named them: a body that
 * is not an object, then an unknown field (usually a typo that would otherwise be dropped
 * silently), then the fields in the schema's order, each by its presence, its type, its rule.
 */
function refusalOf<S extends ObjectSchema>(
  component: string,
  schema: S,
  faults: FieldFaults<S>,
  body: Readonly<Record<string, unknown>>,
  errors: readonly ErrorObject[],
): AppError {
  if (errors.some((error) => error.instancePath === '' && error.keyword === 'type')) {
    return invalid('The body must be a JSON object.');
  }
  const unknown = errors.find((error) => error.keyword === 'additionalProperties');
  if (unknown !== undefined) {
    const name = (unknown.params as { additionalProperty: string }).additionalProperty;
    return invalid(`Unknown field ${JSON.stringify(name).slice(0, 80)}.`, name);
  }
  for (const [field, fieldSchema] of Object.entries(schema.properties)) {
    const own = errors.filter((error) => fieldOf(error) === field);
    if (own.length === 0) continue;
    if (own.some((error) => error.keyword === 'required')) return invalid(`${field} is required.`, field);
    if (own.some((error) => error.keyword === 'type'))
      return invalid(`${field} must be ${typeWords(fieldSchema)}.`, field);
    const fault = faults[field] as ((value: unknown) => string | undefined) | undefined;
    const message = fault?.(body[field]) ?? `${field} breaks its rules: see ${component} in the document.`;
    return invalid(message, field);
  }
  // Unreachable while every error is of the body or one of its declared fields.
  return invalid('The body breaks its schema.');
}

/**
 * An object body declared by its component schema: compiled here, once, so that a schema Ajv
 * cannot compile stops the service at start rather than at a request.
 */
export function objectBody<const S extends ObjectSchema>(declared: {
  readonly component: string;
  readonly schema: S;
  readonly required: boolean;
  readonly examples: Readonly<Record<string, Example>>;
  readonly faults?: FieldFaults<S>;
}): ObjectBodyDeclaration<S> {
  const validate = ajv.compile(declared.schema);
  const faults = declared.faults ?? {};
  return {
    kind: 'object',
    component: declared.component,
    schema: declared.schema,
    required: declared.required,
    examples: declared.examples,
    check(body) {
      if (validate(body)) return body as BodyOf<S>;
      const fields = typeof body === 'object' && body !== null ? (body as Readonly<Record<string, unknown>>) : {};
      throw refusalOf(declared.component, declared.schema, faults, fields, validate.errors ?? []);
    },
  };
}
