import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../support/project.js';

// CHANGELOG.md in Keep a Changelog's form (docs/api.md#compatibility): Unreleased first, then
// releases newest first, each dated, its lines under the form's kinds of change, the newest
// release the package's own version.
const changelog = readFileSync(path.join(PROJECT_ROOT, 'CHANGELOG.md'), 'utf8');
const packageVersion = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
const KINDS = new Set(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']);
const RELEASE = /^## \[?(\d+)\.(\d+)\.(\d+)\]? - (\d{4}-\d{2}-\d{2})$/;

const sections = changelog
  .split(/^(?=## )/m)
  .slice(1)
  .map((text) => ({ heading: text.split('\n', 1)[0] ?? '', body: text }));

test('Unreleased comes first, then releases, each a version and a date', () => {
  assert.equal(sections[0]?.heading, '## [Unreleased]');
  assert.ok(sections.length > 1, 'at least one release');
  for (const { heading } of sections.slice(1)) assert.match(heading, RELEASE);
});

test('releases go newest first: dates falling, versions never rising, the newest the package version', () => {
  const releases = sections.slice(1).map(({ heading }) => {
    const [, major = '', minor = '', patch = '', date = ''] = RELEASE.exec(heading) ?? [];
    return { version: [Number(major), Number(minor), Number(patch)], text: `${major}.${minor}.${patch}`, date };
  });
  assert.equal(releases[0]?.text, packageVersion);
  for (const [index, release] of releases.entries()) {
    assert.ok(!Number.isNaN(Date.parse(release.date)), release.date);
    const older = releases[index + 1];
    if (older === undefined) continue;
    assert.ok(release.date > older.date, `${release.date} after ${older.date}`);
    const rises = older.version.findIndex((part, at) => part !== release.version[at]);
    assert.ok(
      rises === -1 || (older.version[rises] ?? 0) < (release.version[rises] ?? 0),
      `${older.text} after ${release.text}`,
    );
  }
});

test("every section's lines stand under Added, Changed, Deprecated, Removed, Fixed or Security", () => {
  for (const { heading, body } of sections) {
    const kinds = [...body.matchAll(/^### (.+)$/gm)].map((match) => match[1] ?? '');
    assert.ok(kinds.length > 0, `${heading} says what kind of change`);
    for (const kind of kinds) assert.ok(KINDS.has(kind), `${heading}: ${kind}`);
    const beforeFirstKind = body.slice(0, body.indexOf('\n### '));
    assert.doesNotMatch(beforeFirstKind, /^- /m, `${heading}: a line before its kind`);
  }
});
