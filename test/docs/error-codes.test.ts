import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { MealExportErrorCode } from '../../src/client/errors.js';
import { HOST_STATUS_BY_CODE, PUBLIC_STATUS_BY_CODE, STATUS_BY_CODE } from '../../src/errors.js';
import { buildHostOpenApiDocument } from '../../src/host-api/host-openapi.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { PROJECT_ROOT } from '../support/project.js';

// The error codes are written in one table (src/errors.ts) and copied by hand into pages and
// types people read: each copy is tied to the table here, as fastify ties its error table to
// its Errors.md, so that a code added, renamed or moved to another status fails until every
// copy says so.

const page = (name: string) => readFileSync(path.join(PROJECT_ROOT, 'docs', name), 'utf8');

/** The rows of a page's Markdown tables whose first cell is a status: each code of the second cell, with the status. */
function documentedStatuses(markdown: string, section: string): Map<string, Set<number>> {
  const start = markdown.indexOf(section);
  assert.ok(start >= 0, `no ${section}`);
  const rest = markdown.slice(start + section.length);
  const end = rest.search(/\n## /);
  const codes = new Map<string, Set<number>>();
  for (const row of (end < 0 ? rest : rest.slice(0, end)).split('\n')) {
    const cells = row.split('|').map((cell) => cell.trim());
    const status = Number(cells[1]);
    if (!Number.isInteger(status) || status < 400) continue;
    for (const [, code] of (cells[2] ?? '').matchAll(/`([a-z_]+)`/g)) {
      if (code === undefined) continue;
      codes.set(code, (codes.get(code) ?? new Set()).add(status));
    }
  }
  return codes;
}

/** The statuses a code may be answered with: the table's, and request_too_large's other one. */
function statusesOf(code: keyof typeof STATUS_BY_CODE): number[] {
  if (code === 'request_too_large') return [413, 414, 431];
  return [STATUS_BY_CODE[code]];
}

function codeEnum(document: object): string[] {
  const schemas = (document as { components: { schemas: Record<string, unknown> } }).components.schemas;
  const error = schemas.Error as { properties: { error: { properties: { code: { enum: string[] } } } } };
  return error.properties.error.properties.code.enum;
}

test('docs/errors.md has a row for every public code, with its status, and no code the table lacks', () => {
  const documented = documentedStatuses(page('errors.md'), '| status');
  for (const code of Object.keys(PUBLIC_STATUS_BY_CODE) as (keyof typeof PUBLIC_STATUS_BY_CODE)[]) {
    const statuses = documented.get(code);
    assert.ok(statuses !== undefined, `docs/errors.md lacks ${code}`);
    for (const status of statuses) assert.ok(statusesOf(code).includes(status), `${code} is not ${status}`);
  }
  for (const code of documented.keys()) assert.ok(code in PUBLIC_STATUS_BY_CODE, `docs/errors.md names ${code}`);
});

test("docs/host-api.md's table has every code the host API answers, with its status, and no other", () => {
  const documented = documentedStatuses(page('host-api.md'), '## Errors');
  const hostCodes = codeEnum(buildHostOpenApiDocument('test'));
  for (const code of Object.keys(HOST_STATUS_BY_CODE))
    assert.ok(hostCodes.includes(code), `the document lacks ${code}`);
  assert.deepEqual(
    [...documented.keys()].sort(),
    [...hostCodes].sort(),
    'the page and the document name the same codes',
  );
  for (const [code, statuses] of documented) {
    for (const status of statuses) {
      assert.ok(statusesOf(code as keyof typeof STATUS_BY_CODE).includes(status), `${code} is not ${status}`);
    }
  }
});

test("the public document's codes are the public table's", () => {
  assert.deepEqual([...codeEnum(buildOpenApiDocument('test'))].sort(), Object.keys(PUBLIC_STATUS_BY_CODE).sort());
});

test("the SDK's MealExportErrorCode is the public table's codes and unexpected_response (checked by the compiler)", () => {
  // Each line fails to compile when the two lists part.
  type Missing = Exclude<keyof typeof PUBLIC_STATUS_BY_CODE, MealExportErrorCode>;
  type Extra = Exclude<MealExportErrorCode, keyof typeof PUBLIC_STATUS_BY_CODE | 'unexpected_response'>;
  const none: [Missing, Extra] extends [never, never] ? true : false = true;
  assert.equal(none, true);
});
