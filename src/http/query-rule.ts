import { INSTANT_INPUT_PATTERN, parseInstant } from '../domain/instant.js';

/**
 * The kinds of rule a query parameter follows. Each kind makes, from one set of options, both
 * what the parser accepts and the JSON Schema the OpenAPI document publishes for it
 * (docs/api.md#the-openapi-document), so that the two are written once.
 */
export interface QueryParameterRule<T, C> {
  /** Its text in the OpenAPI document. */
  readonly description: string;
  /** Its JSON Schema in the OpenAPI document: its `default` is the value it stands for when not sent. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** When not sent: the value it stands for, or the message of the 400 missing_parameter that requires it. */
  readonly absent: { readonly value: T } | { readonly missing: string };
  /** The value of its percent-decoded text; undefined refuses it, with `invalid` as the message. */
  readonly read: (text: string, context: C) => T | undefined;
  readonly invalid: string;
}

interface RuleWords {
  readonly description: string;
  readonly invalid: string;
}

/** ASCII digits only: `+5`, `1e3`, `5.0` and spaces are refused, leading zeros allowed. */
const DIGITS_RE = /^[0-9]+$/;

/** A required instant: RFC 3339 or a bare date, as domain/instant.ts reads it. */
export function requiredInstant(
  words: RuleWords & { readonly missing: string; readonly examples: readonly string[] },
): QueryParameterRule<number, unknown> {
  return {
    description: words.description,
    schema: { type: 'string', pattern: INSTANT_INPUT_PATTERN, examples: words.examples },
    absent: { missing: words.missing },
    read: parseInstant,
    invalid: words.invalid,
  };
}

interface WholeNumberRange extends RuleWords {
  readonly minimum: number;
  readonly maximum: number;
}

/** A whole number in ASCII digits from `minimum` to `maximum`, never clamped; `default` when not sent. */
export function wholeNumber(
  options: WholeNumberRange & { readonly default: number },
): QueryParameterRule<number, unknown>;
export function wholeNumber(options: WholeNumberRange): QueryParameterRule<number | undefined, unknown>;
export function wholeNumber(
  options: WholeNumberRange & { readonly default?: number },
): QueryParameterRule<number | undefined, unknown> {
  const { minimum, maximum } = options;
  return {
    description: options.description,
    schema: {
      type: 'integer',
      minimum,
      maximum,
      ...(options.default === undefined ? {} : { default: options.default }),
    },
    absent: { value: options.default },
    read: (text) => {
      const value = DIGITS_RE.test(text) ? Number(text) : Number.NaN;
      return value >= minimum && value <= maximum ? value : undefined;
    },
    invalid: options.invalid,
  };
}

/** `true` or `false`, written exactly so; `default` when not sent. */
export function exactBoolean(options: RuleWords & { readonly default: boolean }): QueryParameterRule<boolean, unknown> {
  return {
    description: options.description,
    schema: { type: 'boolean', default: options.default },
    absent: { value: options.default },
    read: (text) => (text === 'true' ? true : text === 'false' ? false : undefined),
    invalid: options.invalid,
  };
}

/**
 * A text the schema can say no more of than that it is a string: what it means is for the
 * request to judge (a cursor is checked against the key's user). Undefined when not sent.
 */
export function checkedText<T, C>(
  options: RuleWords & { readonly read: (text: string, context: C) => T | undefined },
): QueryParameterRule<T | undefined, C> {
  return {
    description: options.description,
    schema: { type: 'string' },
    absent: { value: undefined },
    read: options.read,
    invalid: options.invalid,
  };
}
