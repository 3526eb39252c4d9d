import { redactApiKeys } from '../domain/api-key.js';
import type { FeedPosition } from '../domain/meal.js';
import { AppError } from '../errors.js';
import {
  MEALS_QUERY_PARAMETERS,
  MEALS_QUERY_RULES,
  type MealsQueryContext,
  type MealsQueryParameter,
} from './meals-query-rules.js';
import type { QueryParameterRule } from './query-rule.js';

/** The query of GET /v1/meals, validated by the rules of meals-query-rules.ts (docs/api.md#the-call). */
export interface MealsQuery {
  readonly lastModifiedSince: number;
  readonly limit: number;
  readonly cursor: FeedPosition | undefined;
  readonly includeDeleted: boolean;
  /** `wait`: seconds to hold an empty page for a change (long poll); undefined: answer at once. */
  readonly waitSeconds: number | undefined;
}

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });

/** A parameter's value; undefined when its percent-encoding is malformed. */
type RawValue = string | undefined;

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Splits a raw query string into name -> values. Names and values are percent-decoded as
 * RFC 3986 says (a `+` stays a plus sign, so an offset such as +01:00 may be sent as it is).
 * A value that cannot be decoded is kept as undefined, a fault of its parameter found in the
 * table's order; a name that cannot be decoded is kept raw, an unknown parameter.
 */
function splitQuery(rawQuery: string): Map<string, RawValue[]> {
  const params = new Map<string, RawValue[]>();
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const name = decode(rawName) ?? rawName;
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    const values = params.get(name);
    if (values === undefined) params.set(name, [value]);
    else values.push(value);
  }
  return params;
}

/** One parameter's value by its rule, or the 400 of its first fault. */
function readParameter(
  name: MealsQueryParameter,
  rule: QueryParameterRule<unknown, MealsQueryContext>,
  values: readonly RawValue[] | undefined,
  context: MealsQueryContext,
): unknown {
  if (values === undefined) {
    if ('missing' in rule.absent) throw new AppError('missing_parameter', rule.absent.missing, { param: name });
    return rule.absent.value;
  }
  if (values.length > 1) throw invalid(name, `${name} is given more than once.`);
  const text = values[0];
  if (text === undefined) throw invalid(name, `${name} is not valid percent-encoding.`);
  const value = rule.read(text, context);
  if (value === undefined) throw invalid(name, rule.invalid);
  return value;
}

/** Each parameter's value, by the type its rule reads. */
type MealsQueryValues = {
  [Name in MealsQueryParameter]: (typeof MEALS_QUERY_RULES)[Name] extends QueryParameterRule<infer T, MealsQueryContext>
    ? T
    : never;
};

/**
 * Validates the query. `decodeCursor` checks a cursor against the key's user. Throws the
 * 400 of the first parameter at fault, in the table's order (lastModifiedSince, limit, cursor,
 * includeDeleted, wait), then of the first unknown one.
 */
export function parseMealsQuery(
  rawQuery: string,
  decodeCursor: (cursor: string) => FeedPosition | undefined,
): MealsQuery {
  const params = splitQuery(rawQuery);
  const context: MealsQueryContext = { decodeCursor };
  const read: Partial<Record<MealsQueryParameter, unknown>> = {};
  for (const name of MEALS_QUERY_PARAMETERS) {
    read[name] = readParameter(name, MEALS_QUERY_RULES[name], params.get(name), context);
  }
  // Every name was read above, each by its own rule: the values are of the rules' types.
  const values = read as MealsQueryValues;

  for (const name of params.keys()) {
    if (!(MEALS_QUERY_PARAMETERS as readonly string[]).includes(name)) {
      // `param` names it (docs/errors.md#errors), but a key pasted there by mistake is not sent
      // back, and the message does not repeat it.
      throw invalid(redactApiKeys(name), `Unknown query parameter: expected ${MEALS_QUERY_PARAMETERS.join(', ')}.`);
    }
  }
  return {
    lastModifiedSince: values.lastModifiedSince,
    limit: values.limit,
    cursor: values.cursor,
    includeDeleted: values.includeDeleted,
    waitSeconds: values.wait,
  };
}
