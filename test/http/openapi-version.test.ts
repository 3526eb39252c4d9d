import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { PROJECT_ROOT } from '../support/project.js';
import { request, type ServedApp } from '../support/server.js';

// The package's version is read from package.json itself here, not through src/version.ts,
// so that a document given any other version (a constant, a build's leftover) fails.
const packageVersion = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

let server: ServedApp;

before(async () => {
  server = await startInProcessServer({ hostApiPort: 0 });
});

after(async () => {
  await server.stop();
});

interface ServedDocument {
  readonly info: { readonly version: string };
  readonly paths: Record<string, { get: { responses: { '200': { content: Record<string, unknown> } } } }>;
}

/** The document served at `documentPath`, and the version its own example of that answer shows. */
async function served(target: { host: string; port: number }, documentPath: string) {
  const res = await request(target, { path: documentPath });
  assert.equal(res.status, 200);
  const document = res.json as ServedDocument;
  const content = document.paths[documentPath]?.get.responses['200'].content['application/json'] as {
    examples: { document: { value: { info: { version: string } } } };
  };
  return { version: document.info.version, exampleVersion: content.examples.document.value.info.version };
}

test("the public OpenAPI document's info.version is the package's version, in its example too", async () => {
  const document = await served(server, '/v1/openapi.json');
  assert.equal(document.version, packageVersion);
  assert.equal(document.exampleVersion, packageVersion);
});

test("the host API's OpenAPI document's info.version is the package's version, in its example too", async () => {
  const { hostApi } = server;
  assert.ok(hostApi !== undefined, 'the host API listens');
  const document = await served(hostApi, '/host/v1/openapi.json');
  assert.equal(document.version, packageVersion);
  assert.equal(document.exampleVersion, packageVersion);
});

test('meal-export --version prints the same version', async () => {
  const run = await runCli(['--version']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `${packageVersion}\n`);
});
