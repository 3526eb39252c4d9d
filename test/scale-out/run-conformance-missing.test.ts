import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../support/project.js';

test('the conformance runner without its suite says so in one line and fails', () => {
  const missing = path.join(PROJECT_ROOT, 'no-such-conformance-suite');
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(PROJECT_ROOT, 'test/scale-out/run-conformance.ts'), missing],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  assert.notEqual(run.status, 0);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, `conformance: no suite at ${missing} (expected ../shared/conformance beside the clone)\n`);
});
