import type { FastifyRequest } from 'fastify';
import { redactApiKeys } from '../domain/api-key.js';
import { mealIdFault } from '../domain/meal-id.js';
import { isValidUserId } from '../domain/user-id.js';
import { AppError } from '../errors.js';

/** The path's segments as Fastify decoded them (percent-decoding: `a%2Fb` is the id `a/b`). */
function segment(request: FastifyRequest, name: string): string {
  const value = (request.params as Readonly<Record<string, string | undefined>>)[name];
  // The route declares it: a missing one is a bug of the route table.
  if (value === undefined) throw new Error(`the route has no :${name}`);
  return value;
}

/** `{userId}`: 1-200 characters, no control characters (docs/host-api.md#errors). */
export function userIdOf(request: FastifyRequest): string {
  const userId = segment(request, 'userId');
  if (!isValidUserId(userId)) {
    throw new AppError('invalid_parameter', 'userId must be 1 to 200 characters, none of them a control character.', {
      param: 'userId',
    });
  }
  return userId;
}

/** `{mealId}`: the rules of a meal record's id. */
export function mealIdOf(request: FastifyRequest): string {
  const mealId = segment(request, 'mealId');
  const fault = mealIdFault(mealId);
  if (fault !== undefined) throw new AppError('invalid_parameter', `mealId must ${fault}.`, { param: 'mealId' });
  return mealId;
}

/** `{keyId}`, `{webhookId}`: any text; an unknown one is a 404 of the store's. */
export function idOf(request: FastifyRequest, name: string): string {
  return segment(request, name);
}

/**
 * The query of a path that takes only the parameters named: any other, or one repeated, is
 * `400 invalid_parameter` naming it.
 */
export function queryOf(request: FastifyRequest, allowed: readonly string[]): ReadonlyMap<string, string> {
  const query = new URLSearchParams(request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '');
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
