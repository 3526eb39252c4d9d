import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { type LintFinding, lintWithRedocly, lintWithSpectral } from '../support/openapi-lint.js';

// The document exactly as /v1/openapi.json serves it (app.ts); openapi-conformance.test.ts
// checks that the running server sends these bytes.
const served = JSON.stringify(buildOpenApiDocument(PACKAGE_VERSION));

const errorsAndWarnings = (findings: readonly LintFinding[]) =>
  findings
    .filter((f) => f.severity === 'error' || f.severity === 'warn')
    .map((f) => `${f.severity} ${f.rule} at ${f.where || '(root)'}: ${f.message}`);

test('the OpenAPI document has no error or warning on Spectral with spectral:oas', async () => {
  assert.deepEqual(errorsAndWarnings(await lintWithSpectral(served)), []);
});

test('the OpenAPI document has no error or warning on Redocly with its recommended rules', async () => {
  assert.deepEqual(errorsAndWarnings(await lintWithRedocly(served)), []);
});

test('both linters report a document without servers and with examples that break their schemas', async () => {
  // So that a linter set up to check nothing cannot pass the two tests above. Spectral checks a
  // header's example, Redocly a body's (its rule reads media types only).
  interface Response {
    headers: Record<string, object>;
    content: Record<string, { examples: Record<string, { value: unknown }> }>;
  }
  const broken = JSON.parse(served) as {
    servers?: unknown;
    paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  };
  delete broken.servers;
  const responses = broken.paths['/v1/meals']?.get?.responses;
  const header = responses?.['200']?.headers['X-RateLimit-Limit'];
  assert.ok(header, 'the 200 of GET /v1/meals describes X-RateLimit-Limit');
  Object.assign(header, { example: 'not a number' });
  const missing = responses?.['400']?.content['application/json']?.examples['missing_parameter'];
  assert.ok(missing, 'the 400 of GET /v1/meals has a missing_parameter example');
  missing.value = { error: 'not an object' };
  const json = JSON.stringify(broken);
  const spectral = errorsAndWarnings(await lintWithSpectral(json)).join('\n');
  const redocly = errorsAndWarnings(await lintWithRedocly(json)).join('\n');
  assert.match(spectral, /oas3-api-servers/);
  assert.match(spectral, /X-RateLimit-Limit/);
  assert.match(redocly, /no-empty-servers/);
  assert.match(redocly, /no-invalid-media-type-examples at .*\/400\/.*missing_parameter/);
});
