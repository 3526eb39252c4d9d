import type { FastifyRequest } from 'fastify';
import { redactApiKeys } from '../domain/api-key.js';
import { mealIdFault } from '../domain/meal-id.js';
import { isValidUserId, USER_ID_RULE } from '../domain/user-id.js';
import { AppError } from '../errors.js';

/** The path's segments as Fastify decoded them (percent-decoding: `a%2Fb` is the id `a/b`). */
function segment(request: FastifyRequest, name: string): string {
  const value = (request.params as Readonly<Record<string, string | undefined>>)[name];
  // The route declares it: a missing one is a bug of the route table.
  if (value === undefined) throw new Error(`the route has no :${name}`);
  return value;
}

const USER_ID_FAULT = () => new AppError('invalid_parameter', `${USER_ID_RULE}.`, { param: 'userId' });

const mealIdError = (fault: string) => new AppError('invalid_parameter', `mealId must ${fault}.`, { param: 'mealId' });

/** The rule of each id a path names, by its name: `{keyId}` and `{webhookId}` are any text (an unknown one is a 404 of the store's). */
const PATH_ID_RULES: Readonly<Record<string, (value: string) => AppError | undefined>> = {
  userId: (value) => (isValidUserId(value) ? undefined : USER_ID_FAULT()),
  mealId: (value) => {
    const fault = mealIdFault(value);
    return fault === undefined ? undefined : mealIdError(fault);
  },
};

/**
 * The path's ids and the query, checked before the body is read (docs/host-api.md#errors): the
 * first id at fault in path order, then an unknown or repeated query parameter, is
 * `400 invalid_parameter` naming it. Returns the query's values.
 */
export function checkPathAndQuery(request: FastifyRequest, allowed: readonly string[]): ReadonlyMap<string, string> {
  const params = request.params as Readonly<Record<string, string | undefined>>;
  for (const [name, value] of Object.entries(params)) {
    const fault = value === undefined ? undefined : PATH_ID_RULES[name]?.(value);
    if (fault !== undefined) throw fault;
  }
  return queryOf(request, allowed);
}

/** `{userId}`, checked by checkPathAndQuery before the handler. */
export function userIdOf(request: FastifyRequest): string {
  return segment(request, 'userId');
}

/** `{mealId}`, checked by checkPathAndQuery before the handler. */
export function mealIdOf(request: FastifyRequest): string {
  return segment(request, 'mealId');
}

/** `{keyId}`, `{webhookId}`: any text; an unknown one is a 404 of the store's. */
export function idOf(request: FastifyRequest, name: string): string {
  return segment(request, name);
}

const NO_QUERY: ReadonlyMap<string, string> = new Map();

/**
 * The query of a path that takes only the parameters named: any other, or one repeated, is
 * `400 invalid_parameter` naming it.
 */
function queryOf(request: FastifyRequest, allowed: readonly string[]): ReadonlyMap<string, string> {
  const start = request.url.indexOf('?');
  if (start < 0) return NO_QUERY;
  const query = new URLSearchParams(request.url.slice(start + 1));
  const values = new Map<string, string>();
  for (const [name, value] of query) {
    if (!allowed.includes(name)) {
      throw new AppError('invalid_parameter', 'Unknown query parameter.', { param: redactApiKeys(name.slice(0, 80)) });
    }
    if (values.has(name))
      throw new AppError('invalid_parameter', `${name} is given twice.`, { param: redactApiKeys(name) });
    values.set(name, value);
  }
  return values;
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
  if (!isValidUserId(userId)) return USER_ID_FAULT();
  const fault = mealId === undefined || meals !== 'meals' ? undefined : mealIdFault(mealId);
  return fault === undefined ? undefined : mealIdError(fault);
}
