import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildHostOpenApiDocument } from '../../src/host-api/host-openapi.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { type LintFinding, lintWithRedocly, lintWithSpectral } from '../support/openapi-lint.js';

// The document exactly as /host/v1/openapi.json serves it (host-listener.ts);
// host-openapi-checker.ts checks that the running server sends these bytes.
const served = JSON.stringify(buildHostOpenApiDocument(PACKAGE_VERSION));

const errorsAndWarnings = (findings: readonly LintFinding[]) =>
  findings
    .filter((f) => f.severity === 'error' || f.severity === 'warn')
    .map((f) => `${f.severity} ${f.rule} at ${f.where || '(root)'}: ${f.message}`);

type Node = Readonly<Record<string, unknown>>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;
const pointerPart = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Every example of the document checked against its schema with Ajv (JSON Schema 2020-12, as
 * openapi-answer-check.ts does): those of bodies, parameters and headers, the ones under
 * x-responses-without-operation too, which neither linter reads, and each line of the
 * import's JSON Lines against the schema its contentSchema names.
 */
function exampleProblems(json: string): string[] {
  const document = JSON.parse(json) as Node;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addFormat('date-time', (text: string) => !Number.isNaN(Date.parse(text)));
  ajv.addSchema({ ...document, $id: 'urn:meal-export:host-openapi' });
  const problems: string[] = [];
  const check = (schemaAt: string, value: unknown, where: string) => {
    const validate = ajv.compile({ $ref: `urn:meal-export:host-openapi#${schemaAt}` });
    if (!validate(value)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  };
  const visit = (node: unknown, at: string): void => {
    if (!isNode(node)) return;
    if (isNode(node.schema) && !at.startsWith('/components/schemas')) {
      if ('example' in node) check(`${at}/schema`, node.example, `${at}/example`);
      const examples = isNode(node.examples) ? node.examples : {};
      for (const [name, example] of Object.entries(examples)) {
        const value = isNode(example) ? example.value : undefined;
        check(`${at}/schema`, value, `${at}/examples/${name}`);
        const lines = node.schema.contentSchema;
        if (isNode(lines) && typeof value === 'string') {
          const records = value.split('\n').filter((line) => line.trim() !== '');
          for (const [index, line] of records.entries()) {
            check(`${at}/schema/contentSchema`, JSON.parse(line), `${at}/examples/${name} line ${index + 1}`);
          }
        }
      }
    }
    for (const [key, child] of Object.entries(node)) visit(child, `${at}/${pointerPart(key)}`);
  };
  visit(document, '');
  return problems;
}

test("the host API's OpenAPI document has no error or warning on Spectral with spectral:oas", async () => {
  assert.deepEqual(errorsAndWarnings(await lintWithSpectral(served)), []);
});

test("the host API's OpenAPI document has no error or warning on Redocly with its recommended rules", async () => {
  assert.deepEqual(errorsAndWarnings(await lintWithRedocly(served)), []);
});

test('every example of the document meets its schema, those outside operations and each import line included', () => {
  assert.deepEqual(exampleProblems(served), []);
});

test('the linters and the example check report examples that break their schemas', async () => {
  // So that a check set up to look at nothing cannot pass the three tests above.
  type Media = { examples: Record<string, { value: unknown }> };
  type Response = { headers: Record<string, { example: unknown }>; content: Record<string, Media> };
  type Operation = { responses: Record<string, Response>; requestBody: { content: Record<string, Media> } };
  const broken = JSON.parse(served) as {
    paths: Record<string, Record<string, Operation>>;
    'x-responses-without-operation': Record<string, Response>;
  };
  const meal = broken.paths['/host/v1/users/{userId}/meals/{mealId}'];
  const retryAfter = meal?.put?.responses['429']?.headers['Retry-After'];
  assert.ok(retryAfter, 'the 429 of PUT …/meals/{mealId} describes Retry-After');
  retryAfter.example = 'soon';
  const created = meal?.put?.responses['200']?.content['application/json']?.examples['created'];
  assert.ok(created, 'the 200 of PUT …/meals/{mealId} has a created example');
  created.value = { id: 'm_1', outcome: 'kept' };
  const allow = broken['x-responses-without-operation']['405']?.headers['Allow'];
  assert.ok(allow, 'the 405 without an operation describes Allow');
  allow.example = 'get';
  const lines = broken.paths['/host/v1/users/{userId}/meals/import']?.post?.requestBody.content['application/x-ndjson'];
  assert.ok(lines?.examples['twoMeals'], 'the import has a JSON Lines example');
  lines.examples['twoMeals'].value = '{"id":"m_1","type":"brunch","date":"2025-03-14"}\n';
  const json = JSON.stringify(broken);

  assert.match(errorsAndWarnings(await lintWithSpectral(json)).join('\n'), /Retry-After/);
  assert.match(
    errorsAndWarnings(await lintWithRedocly(json)).join('\n'),
    /no-invalid-media-type-examples at .*\/200\/.*created/,
  );
  const problems = exampleProblems(json).join('\n');
  assert.match(problems, /429\/headers\/Retry-After\/example/);
  assert.match(problems, /\/200\/content\/application~1json\/examples\/created/);
  assert.match(problems, /x-responses-without-operation\/405\/headers\/Allow\/example/);
  assert.match(problems, /twoMeals line 1/);
});
