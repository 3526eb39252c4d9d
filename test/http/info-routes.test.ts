import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertCommonHeaders, assertError, ENVELOPE_FIELDS, MEAL_FIELDS } from './http-expect.js';

let server: ServedApp;

before(async () => {
  server = await startInProcessServer();
});

after(async () => {
  await server.stop();
});

interface OpenApiParameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema: Record<string, unknown>;
}

interface OpenApiDocument {
  readonly openapi: string;
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Record<
    string,
    Record<string, { parameters?: OpenApiParameter[]; responses: Record<string, unknown> }>
  >;
  readonly components: {
    readonly schemas: Record<string, { properties: Record<string, unknown>; required: string[] }>;
  };
}

async function openApi(): Promise<OpenApiDocument> {
  const res = await request(server, { path: '/v1/openapi.json' });
  assert.equal(res.status, 200);
  assertCommonHeaders(res, 'openapi');
  return res.json as OpenApiDocument;
}

/** Every `$ref` string anywhere in a JSON value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refsIn(v)));
}

test('GET /healthz is exactly {"ok":true}, with no key, and HEAD /healthz has no body', async () => {
  const res = await request(server, { path: '/healthz' });
  assert.equal(res.status, 200);
  assert.equal(res.text, '{"ok":true}');
  assertCommonHeaders(res, 'healthz');
  const withJunkKey = await request(server, { path: '/healthz', headers: { authorization: 'Bearer nonsense' } });
  assert.equal(withJunkKey.text, '{"ok":true}', 'no key is needed, and none is checked');
  const head = await request(server, { method: 'HEAD', path: '/healthz' });
  assert.equal(head.status, 200);
  assert.equal(head.raw.length, 0);
});

test('GET /readyz is 200 JSON while storage and limiter answer', async () => {
  const res = await request(server, { path: '/readyz' });
  assert.equal(res.status, 200);
  assertCommonHeaders(res, 'readyz');
  assert.notEqual(res.json, undefined);
});

test('/metrics is not served on the public port', async () => {
  assertError(await request(server, { path: '/metrics' }), 404, 'not_found', { param: null });
});

test('/v1/openapi.json is an OpenAPI 3.1 document with GET /v1/meals and its parameters in contract order', async () => {
  const doc = await openApi();
  assert.match(doc.openapi, /^3\.1\.\d+$/);
  assert.equal(typeof doc.info.title, 'string');
  const get = doc.paths['/v1/meals']?.get;
  assert.ok(get, 'paths./v1/meals.get');
  const parameters = get.parameters ?? [];
  assert.deepEqual(
    parameters.map((p) => [p.name, p.in, p.required === true]),
    [
      ['lastModifiedSince', 'query', true],
      ['limit', 'query', false],
      ['cursor', 'query', false],
      ['includeDeleted', 'query', false],
      ['wait', 'query', false],
    ],
  );
  const limit = parameters.find((p) => p.name === 'limit')!.schema;
  assert.deepEqual([limit.minimum, limit.maximum, limit.default], [1, 5000, 1000]);
  for (const status of ['200', '400', '401', '403', '410', '429']) {
    assert.ok(status in get.responses, `a ${status} response is described`);
  }
  const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  const methods = Object.keys(doc.paths['/v1/meals'] ?? {}).filter((m) => HTTP_METHODS.includes(m));
  assert.deepEqual(methods, ['get', 'head'], 'the API is read-only: GET and HEAD alone are documented');
});

test('the OpenAPI document describes HEAD /v1/meals as GET without a body', async () => {
  const doc = await openApi();
  const { get, head } = doc.paths['/v1/meals'] ?? {};
  assert.ok(get && head, 'GET and HEAD');
  assert.deepEqual(head.parameters, get.parameters);
  assert.deepEqual(Object.keys(head.responses), Object.keys(get.responses));
  for (const [status, response] of Object.entries(head.responses)) {
    assert.ok(!('content' in (response as object)), `HEAD ${status} has no body`);
  }
});

test('includeDeleted is a boolean, and lastModifiedSince has a pattern that takes what the server takes', async () => {
  const doc = await openApi();
  const parameters = doc.paths['/v1/meals']?.get?.parameters ?? [];
  const schemaOf = (name: string) => parameters.find((p) => p.name === name)?.schema ?? {};
  assert.deepEqual(schemaOf('includeDeleted'), { type: 'boolean', default: false });
  const pattern = new RegExp(String(schemaOf('lastModifiedSince').pattern), 'u');
  for (const good of [
    '2025-01-01T00:00:00Z',
    '2025-01-01',
    '0000-01-01T00:00:00.123456789+05:30',
    '2025-01-01T00:00:00',
  ]) {
    assert.match(good, pattern);
  }
  for (const bad of [
    '',
    '2025-1-1',
    '2025-01-01 00:00:00Z',
    '2025-01-01T00:00Z',
    '1735689600',
    '2025-01-01T00:00:00+0100',
  ]) {
    assert.doesNotMatch(bad, pattern);
  }
});

test('every page item, live meal or tombstone, declares deleted, so a generated client can read it on the union', async () => {
  const doc = await openApi();
  const page = doc.components.schemas.MealPage as unknown as {
    properties: { meals: { items: { anyOf: { $ref: string }[] } } };
  };
  const members = page.properties.meals.items.anyOf.map((m) => m.$ref.replace('#/components/schemas/', ''));
  assert.deepEqual(members, ['LiveMeal', 'Tombstone']);
  for (const name of members) {
    assert.ok('deleted' in (doc.components.schemas[name]?.properties ?? {}), `${name} declares deleted`);
  }
  assert.deepEqual(Object.keys(doc.components.schemas.LiveMeal?.properties ?? {}), [...MEAL_FIELDS, 'deleted']);
  assert.ok(!doc.components.schemas.LiveMeal?.required.includes('deleted'), 'deleted only with includeDeleted=true');
});

test('the rate limits are in the RateLimit-Policy header the answers describe, and no figure of this server is in the text', async () => {
  const doc = await openApi();
  const get = doc.paths['/v1/meals']?.get as unknown as {
    description: string;
    responses: Record<string, { headers?: Record<string, { description: string }> }>;
  };
  for (const status of ['200', '429']) {
    assert.match(get.responses[status]?.headers?.['RateLimit-Policy']?.description ?? '', /"daily";q=/, status);
  }
  assert.ok(get.responses['429']?.headers?.['Retry-After'], '429 describes Retry-After');
  assert.match(get.description, /RateLimit-Policy/);
  assert.doesNotMatch(get.description, /\d/, 'no figure in the operation description');
});

test('the OpenAPI LiveMeal schema lists the fifteen fields in contract order, all required, and the page its seven', async () => {
  const doc = await openApi();
  const { LiveMeal, MealPage, Tombstone } = doc.components.schemas;
  assert.ok(LiveMeal && MealPage && Tombstone);
  assert.deepEqual(Object.keys(LiveMeal.properties), [...MEAL_FIELDS, 'deleted']);
  assert.deepEqual([...LiveMeal.required].sort(), [...MEAL_FIELDS].sort());
  assert.deepEqual(Object.keys(MealPage.properties), ENVELOPE_FIELDS);
  assert.deepEqual(Object.keys(Tombstone.properties), ['id', 'modifiedAt', 'deleted']);
  for (const ref of refsIn(doc)) {
    const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
    assert.ok(name !== undefined && name in doc.components.schemas, `$ref ${ref} resolves`);
  }
});

test('the OpenAPI document describes the webhook call: its Standard Webhooks headers and its two bodies, fields in contract order', async () => {
  const doc = (await openApi()) as unknown as {
    webhooks: Record<string, { post: { parameters: { name: string; in: string }[]; requestBody: unknown } }>;
    components: { schemas: Record<string, { properties: Record<string, { properties?: object }> }> };
  };
  const post = doc.webhooks.mealsChanged?.post;
  assert.ok(post, 'webhooks.mealsChanged.post');
  assert.deepEqual(
    post.parameters.map((p) => [p.name, p.in]),
    [
      ['webhook-id', 'header'],
      ['webhook-timestamp', 'header'],
      ['webhook-signature', 'header'],
    ],
  );
  const changed = doc.components.schemas.MealsChangedEvent;
  assert.ok(changed);
  assert.deepEqual(Object.keys(changed.properties), ['type', 'timestamp', 'data']);
  assert.deepEqual(Object.keys(changed.properties.data?.properties ?? {}), ['userId', 'from', 'through']);
  assert.ok(doc.components.schemas.WebhookTestEvent);
});

test('the OpenAPI document is compressed when the client asks (it is over 1 KiB)', async () => {
  const plain = await request(server, { path: '/v1/openapi.json' });
  const gzip = await request(server, { path: '/v1/openapi.json', headers: { 'accept-encoding': 'gzip' } });
  assert.ok(plain.raw.length > 1024);
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.equal(gzip.text, plain.text);
});

test('the OpenAPI document is the same on a server started with other rate limits', async () => {
  const other = await startInProcessServer({ minIntervalMs: 7000, dailyLimit: 42 });
  try {
    const theirs = await request(other, { path: '/v1/openapi.json' });
    const ours = await request(server, { path: '/v1/openapi.json' });
    assert.equal(theirs.text, ours.text);
  } finally {
    await other.stop();
  }
});
