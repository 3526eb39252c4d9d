import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FINAL_READ_SECONDS, MAX_WAIT_SECONDS, PROXY_IDLE_TIMEOUT_SECONDS } from '../../src/domain/page-bounds.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { CALL_DEADLINE_MS } from '../../src/storage/postgres/postgres-call-policy.js';
import { BUSY_TIMEOUT_MS } from '../../src/storage/sqlite/sqlite-call-policy.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { PROJECT_ROOT } from '../support/project.js';

const DOCS = ['docs/api.md', 'docs/operations.md', 'docs/capacity.md'];
const FIGURE = /idle timeouts? above (\d+) s/g;

test('the proxy idle timeout is the longest wait plus the final read, the same in the OpenAPI document and the docs', () => {
  // The last read of a held page is a store call, bounded by each store's deadline.
  assert.ok(CALL_DEADLINE_MS <= FINAL_READ_SECONDS * 1000 && BUSY_TIMEOUT_MS <= FINAL_READ_SECONDS * 1000);
  assert.equal(PROXY_IDLE_TIMEOUT_SECONDS, MAX_WAIT_SECONDS + FINAL_READ_SECONDS);

  // The served document is this one (test/http/openapi-conformance.test.ts); `wait` says it.
  const texts = [
    ['the OpenAPI document', JSON.stringify(buildOpenApiDocument(PACKAGE_VERSION))],
    ...DOCS.map((page) => [page, readFileSync(path.join(PROJECT_ROOT, page), 'utf8')]),
  ];
  for (const [where, text = ''] of texts) {
    const figures = [...text.matchAll(FIGURE)].map((m) => Number(m[1]));
    assert.ok(figures.length > 0, `${where} names the idle timeout`);
    for (const figure of figures) assert.equal(figure, PROXY_IDLE_TIMEOUT_SECONDS, where);
  }
});
