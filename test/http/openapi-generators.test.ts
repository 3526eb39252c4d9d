import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { PACKAGE_VERSION } from '../../src/version.js';

// What common client generators need of the document (docs/api.md#generating-a-client).
// openapi-python-client writes `if x != False` + `and not isinstance(x, Unset)` for an optional
// boolean `const`, which reads `Falseand` and does not parse; a boolean with a one-value enum
// is a plain bool to it and still `deleted?: false` / `deleted: true` to openapi-typescript.
type Schema = { [key: string]: unknown };
const document = JSON.parse(JSON.stringify(buildOpenApiDocument(PACKAGE_VERSION))) as {
  components: { schemas: Record<string, Schema & { properties: Record<string, Schema> }> };
};
const schemas = document.components.schemas;

test('deleted is a boolean with a one-value enum on live meals and tombstones, without const', () => {
  assert.deepEqual(schemas['LiveMeal']?.properties['deleted'], {
    type: 'boolean',
    enum: [false],
    description: 'Present (false) only when the request has includeDeleted=true.',
  });
  assert.deepEqual(schemas['Tombstone']?.properties['deleted'], { type: 'boolean', enum: [true] });
});

test('no optional property of any schema is a boolean const', () => {
  const found: string[] = [];
  const visit = (schema: unknown, at: string): void => {
    if (typeof schema !== 'object' || schema === null) return;
    const object = schema as Schema;
    const required = Array.isArray(object['required']) ? (object['required'] as string[]) : [];
    const properties = (object['properties'] ?? {}) as Record<string, Schema>;
    for (const [name, property] of Object.entries(properties)) {
      if (typeof property['const'] === 'boolean' && !required.includes(name)) found.push(`${at}.${name}`);
    }
    for (const [key, child] of Object.entries(object)) visit(child, `${at}/${key}`);
  };
  visit(document, '#');
  assert.deepEqual(found, []);
});

test('the page items stay told apart by deleted and by their required fields', () => {
  const live = schemas['LiveMeal'];
  const tombstone = schemas['Tombstone'];
  assert.equal(live?.['additionalProperties'], false);
  assert.equal(tombstone?.['additionalProperties'], false);
  assert.deepEqual(tombstone?.['required'], ['id', 'modifiedAt', 'deleted']);
  assert.ok((live?.['required'] as string[]).includes('title'), 'a tombstone lacks what a live meal requires');
});
