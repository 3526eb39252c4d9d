import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SERVE_FLAGS } from '../../src/cli/serve-flags.js';
import { ENV } from '../../src/config.js';
import { PROJECT_ROOT } from '../support/project.js';

// docs/configuration.md is a hand-kept copy of two tables: the environment variables
// (src/config.ts ENV) and the flags of `serve` (src/cli/serve.ts SERVE_FLAGS). Tied here.

const PAGE = readFileSync(path.join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8');
const ROWS = PAGE.split('\n').filter((line) => line.startsWith('| '));

test('every environment variable the service reads is on the page, and the page names no other', () => {
  const read = new Set<string>(Object.values(ENV));
  const named = new Set(PAGE.match(/MEAL_EXPORT_[A-Z_]+/g) ?? []);
  assert.deepEqual([...named].sort(), [...read].sort());
});

test('every flag of serve is on the page, on the row of the variable it falls back to', () => {
  for (const [name, flag] of Object.entries(SERVE_FLAGS)) {
    const rows = ROWS.filter((row) => row.includes(`\`--${name}\``) || row.includes(`\`--${name} `));
    assert.ok(rows.length > 0, `docs/configuration.md lacks --${name}`);
    if ('env' in flag) {
      assert.ok(
        rows.some((row) => row.includes(ENV[flag.env])),
        `--${name} falls back to ${ENV[flag.env]}, which its row does not say`,
      );
    }
  }
});
