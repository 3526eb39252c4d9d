import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseSourceVersionText, sourceVersionFault } from '../domain/source-version.js';
import { AppError } from '../errors.js';
import { deleteRecord, saveRecord, storedMealJson } from '../host/host-meal-operations.js';
import type { Storage } from '../storage/storage.js';
import { jsonObjectBody, queryParam } from './host-body.js';
import { refusalError, unknownId } from './host-errors.js';
import { importRecords, type ImportStore } from './host-import.js';
import { mealIdOf, userIdOf } from './host-paths.js';
import { type HostAnswer, registerResource } from './host-resource.js';

export interface HostMealRoutesDeps {
  readonly storage: Storage;
  /** Where imports write (host-import.ts). */
  readonly imports: ImportStore;
}

/** The version of a delete, from `?sourceVersion=N`. */
function deleteVersion(request: FastifyRequest): number | undefined {
  const text = queryParam(request, 'sourceVersion');
  if (text === undefined) return undefined;
  const version = parseSourceVersionText(text);
  if (version === undefined) {
    throw new AppError('invalid_parameter', sourceVersionFault(), { param: 'sourceVersion' });
  }
  return version;
}

/** The handlers of one meal, its id read by `mealId` (the path's, or `import` itself: see below). */
function mealHandlers(deps: HostMealRoutesDeps, mealId: (request: FastifyRequest) => string) {
  const { storage } = deps;
  return {
    async GET(request: FastifyRequest): Promise<HostAnswer> {
      const [userId, id] = [userIdOf(request), mealId(request)];
      const json = await storedMealJson(storage.feed, userId, id);
      if (json === undefined) throw unknownId('meal');
      return { status: 200, raw: json };
    },
    async PUT(request: FastifyRequest): Promise<HostAnswer> {
      const [userId, id] = [userIdOf(request), mealId(request)];
      const record = jsonObjectBody(request, 'any');
      const saved = await saveRecord(storage.writes, userId, id, record, Date.now());
      if (!saved.ok) throw refusalError(saved);
      return { status: 200, body: { id: saved.id, outcome: saved.outcome, modifiedAt: saved.modifiedAt } };
    },
    DELETE: {
      query: ['sourceVersion'],
      async handle(request: FastifyRequest): Promise<HostAnswer> {
        const [userId, id] = [userIdOf(request), mealId(request)];
        const version = deleteVersion(request);
        const deleted = await deleteRecord(storage.writes, userId, id, version, Date.now());
        if (deleted.ok) return { status: 200, body: { id: deleted.id, outcome: deleted.outcome } };
        if (deleted.reason === 'not_found') throw unknownId('meal');
        throw refusalError(deleted);
      },
    },
  };
}

/** The meals of a user (docs/host-api.md#saving-and-deleting-meals). */
export function registerHostMealRoutes(app: FastifyInstance, deps: HostMealRoutesDeps): void {
  registerResource(app, '/host/v1/users/:userId/meals/:mealId', mealHandlers(deps, mealIdOf));
  // The import's path is also the path of the meal whose id is `import`: the router takes the
  // static segment first, so that meal's GET, PUT and DELETE are answered here.
  registerResource(app, '/host/v1/users/:userId/meals/import', {
    ...mealHandlers(deps, () => 'import'),
    async POST(request) {
      const userId = userIdOf(request);
      const counts = await importRecords(request, userId, deps.imports);
      return { status: 200, body: counts };
    },
  });
}
