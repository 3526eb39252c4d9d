import type { FastifyRequest } from 'fastify';
import { redactApiKeys } from '../domain/api-key.js';
import { mealIdFault } from '../domain/meal-id.js';
import { isValidUserId, USER_ID_RULE } from '../domain/user-id.js';
import { AppError } from '../errors.js';
import { errorExample } from '../openapi/answers.js';
import { mealIdSchema } from './host-openapi-schemas.js';
import type { PathParameter, QueryParameter } from './host-route-table.js';

const userIdFault = () => new AppError('invalid_parameter', `${USER_ID_RULE}.`, { param: 'userId' });

const mealIdError = (fault: string) => new AppError('invalid_parameter', `mealId must ${fault}.`, { param: 'mealId' });

/** `{userId}`: the user as the app names them. */
export const USER_ID: PathParameter<'userId'> = {
  name: 'userId',
  description:
    'The user, as the app names them, percent-encoded in the path: 1 to 200 characters, no control characters, else 400 invalid_parameter naming userId.',
  schema: { ...mealIdSchema, description: 'Opaque to the service.' },
  example: 'u_42',
  rule: {
    fault: (value) => (isValidUserId(value) ? undefined : userIdFault()),
    example: errorExample('invalid_parameter', `${USER_ID_RULE}.`, 'userId', 'invalid_userId'),
  },
};

/** `{mealId}`: the meal's id, chosen by the app. */
export const MEAL_ID: PathParameter<'mealId'> = {
  name: 'mealId',
  description:
    "The meal's id, percent-encoded in the path (a%2Fb is the id a/b): 1 to 200 characters, no control characters, else 400 invalid_parameter naming mealId.",
  schema: mealIdSchema,
  example: 'm_01J9ZQ4W8K',
  rule: {
    fault: (value) => {
      const fault = mealIdFault(value);
      return fault === undefined ? undefined : mealIdError(fault);
    },
    example: errorExample('invalid_parameter', 'mealId must be at most 200 characters.', 'mealId', 'invalid_mealId'),
  },
};

/** An id of the store's (`{keyId}`, `{webhookId}`): any text; an unknown one is a 404. */
export function storeIdParameter<const Name extends string>(
  name: Name,
  description: string,
  example: string,
): PathParameter<Name> {
  return { name, description, schema: { type: 'string' }, example };
}

const NO_QUERY: ReadonlyMap<string, unknown> = new Map();

/**
 * The query of a method that takes only the parameters it declares: any other, or one repeated,
 * is `400 invalid_parameter` naming it, as is a value its parameter refuses. Returns the values.
 */
function queryOf(request: FastifyRequest, declared: readonly QueryParameter<unknown>[]): ReadonlyMap<string, unknown> {
  const start = request.url.indexOf('?');
  if (start < 0) return NO_QUERY;
  const query = new URLSearchParams(request.url.slice(start + 1));
  const values = new Map<string, unknown>();
  for (const [name, text] of query) {
    const parameter = declared.find((candidate) => candidate.name === name);
    if (parameter === undefined) {
      throw new AppError('invalid_parameter', 'Unknown query parameter.', { param: redactApiKeys(name.slice(0, 80)) });
    }
    if (values.has(name))
      throw new AppError('invalid_parameter', `${name} is given twice.`, { param: redactApiKeys(name) });
    const value = parameter.parse(text);
    if (value instanceof AppError) throw value;
    values.set(name, value);
  }
  return values;
}

/**
 * The path's ids and the query, checked before the body is read (docs/host-api.md#errors): the
 * first id at fault in path order, then an unknown, repeated or bad query parameter, is
 * `400 invalid_parameter` naming it. Returns the query's values.
 */
export function checkPathAndQuery(
  request: FastifyRequest,
  parameters: readonly PathParameter[],
  query: readonly QueryParameter<unknown>[],
): ReadonlyMap<string, unknown> {
  const params = request.params as Readonly<Record<string, string | undefined>>;
  for (const parameter of parameters) {
    const value = params[parameter.name];
    const fault = value === undefined ? undefined : parameter.rule?.fault(value);
    if (fault !== undefined) throw fault;
  }
  return queryOf(request, query);
}

/**
 * The path's id at fault in a request the router refused before any hook (it refuses some
 * escapes of control characters, `%00` among them), so that such an id is the same
 * `400 invalid_parameter` as one the route's own check finds. Undefined: the path is
 * malformed as such (an escape that does not decode).
 */
export function refusedPathId(url: string): AppError | undefined {
  const segments = (url.split('?')[0] ?? '').split('/');
  let decoded: string[];
  try {
    decoded = segments.map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
  const [, host, version, users, userId, meals, mealId] = decoded;
  if (host !== 'host' || version !== 'v1' || users !== 'users' || userId === undefined) return undefined;
  const userFault = USER_ID.rule?.fault(userId);
  if (userFault !== undefined) return userFault;
  return mealId === undefined || meals !== 'meals' ? undefined : MEAL_ID.rule?.fault(mealId);
}
