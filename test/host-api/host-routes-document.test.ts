import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { buildHostOpenApiDocument } from '../../src/host-api/host-openapi.js';
import { type HostRouteConfig, registerResource } from '../../src/host-api/host-resource.js';
import { storeIdParameter } from '../../src/host-api/host-paths.js';
import {
  type HostOperation,
  hostResource,
  type HostRoutesDeps,
  successStatusOf,
} from '../../src/host-api/host-route-table.js';
import { HOST_RESOURCES, registerHostRoutes } from '../../src/host-api/host-routes.js';
import type { Storage } from '../../src/storage/storage.js';

// The host API's routes and its OpenAPI document are both made from one table of resources
// (host-route-table.ts, host-routes.ts). Tied here, so that neither can be made another way
// unseen: the routes Fastify serves and the document's paths have the same methods (HEAD beside
// GET) and the same query parameters per method, and a JSON body's accepted fields are its
// component schema's.

type Operation = { readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }> };
type PathItem = Readonly<Record<string, unknown>> & Operation;

async function declaredRoutes(): Promise<HostRouteConfig[]> {
  const app = Fastify();
  const routes: HostRouteConfig[] = [];
  app.addHook('onRoute', (route) => {
    const config = route.config as Partial<HostRouteConfig> | undefined;
    if (config?.template !== undefined) routes.push(config as HostRouteConfig);
  });
  // Registration reads no store: the routes only close over it.
  registerHostRoutes(app, {
    storage: {} as unknown as Storage,
    imports: { writes: () => Promise.reject(new Error('unused')), close: async () => undefined },
    publicUrl: undefined,
    openApiJson: '{}',
  });
  await app.ready();
  await app.close();
  return routes;
}

test('every path of the document is a route with the same methods and query parameters, and the other way round', async () => {
  const routes = await declaredRoutes();
  const paths = (buildHostOpenApiDocument('test') as { paths: Record<string, PathItem> }).paths;
  assert.deepEqual(routes.map((route) => route.template).sort(), Object.keys(paths).sort());
  for (const route of routes) {
    const item = paths[route.template] ?? {};
    const methods = ['get', 'head', 'put', 'post', 'delete'].filter((method) => method in item);
    // What the path answers, as its description says it (the import's path describes only its
    // POST: its GET, PUT and DELETE are those of the meal whose id is `import`).
    const allow = /Allow: ([A-Z]+(?:, [A-Z]+)*)/.exec(String(item.description))?.[1];
    assert.equal(allow, route.allow.join(', '), `${route.template}: the document's Allow`);
    for (const method of methods) {
      assert.ok(route.allow.includes(method.toUpperCase()), `${route.template}: ${method} is not a route`);
    }
    for (const method of methods) {
      const operation = item[method] as Operation;
      const query = [...(item.parameters ?? []), ...(operation.parameters ?? [])]
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name);
      assert.deepEqual(
        query.sort(),
        (route.query[method.toUpperCase()] ?? []).map((parameter) => parameter.name).sort(),
        `${method.toUpperCase()} ${route.template}: the query parameters`,
      );
    }
  }
});

test("a JSON body's fields are those of the component the document names for it", () => {
  const schemas = (buildHostOpenApiDocument('test') as { components: { schemas: Record<string, unknown> } }).components
    .schemas;
  let bodies = 0;
  for (const resource of HOST_RESOURCES) {
    for (const operation of Object.values(resource.operations)) {
      const body = operation?.body;
      if (body?.kind !== 'object') continue;
      bodies += 1;
      assert.equal(schemas[body.component], body.schema, `${operation?.operationId}: ${body.component}`);
    }
  }
  // Keys, sign-in links, webhook endpoints and apps.
  assert.equal(bodies, 4);
});

test('each method declares one success, the status its handler is answered with; a table declaring two fails at start', async () => {
  for (const resource of HOST_RESOURCES) {
    for (const operation of Object.values(resource.operations)) {
      if (operation === undefined) continue;
      const successes = Object.keys(operation.answers).filter((status) => status.startsWith('2'));
      assert.deepEqual([successStatusOf(operation)], successes.map(Number), operation.operationId);
    }
  }
  const [first] = HOST_RESOURCES;
  const saveMeal = first?.operations.PUT;
  assert.ok(first !== undefined && saveMeal !== undefined);
  const twice = { ...saveMeal, answers: { ...saveMeal.answers, '201': saveMeal.answers['200'] } } as HostOperation;
  const app = Fastify();
  const deps = {} as unknown as HostRoutesDeps;
  assert.throws(
    () => registerResource(app, { ...first, operations: { PUT: twice } }, deps),
    /saveMeal declares 2 successes/,
  );
  await app.close();
});

test('a handler asks only for the ids its path declares: another does not compile', async () => {
  const resource = hostResource({
    path: '/host/v1/keys/{keyId}',
    tag: 'Keys',
    description: 'A key.',
    parameters: [storeIdParameter('keyId', 'A key id.', 'key_1')],
    operations: {
      GET: {
        operationId: 'getKeyId',
        summary: 'Its id.',
        description: 'Its id.',
        answers: {},
        async handle(call) {
          // @ts-expect-error userId is no id of this path
          const missing = (): string => call.id('userId');
          return { body: { id: call.id('keyId'), missing: typeof missing } };
        },
      },
    },
  });
  assert.deepEqual(
    resource.parameters.map((parameter) => parameter.name),
    ['keyId'],
  );
});
