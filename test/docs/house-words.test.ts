import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { headingSlugs } from '../support/heading-slugs.js';
import { PROJECT_ROOT } from '../support/project.js';

/**
 * The repository speaks of itself: a reader of a clone sees its files and nothing else, so no
 * file cites a document the clone does not carry or the number of a tracker it cannot open, and
 * every reference page a comment cites (`docs/<page>.md#<anchor>`) is there.
 */
const SCOPE = ['src', 'test', 'bench', 'scripts', 'soak', 'docs', '.ci', 'README.md', 'SECURITY.md'];
const FILES = execFileSync('git', ['ls-files', '-z', '--', ...SCOPE], { cwd: PROJECT_ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && existsSync(path.join(PROJECT_ROOT, file)))
  // Text only: an image's bytes (docs/images) can spell anything, and no reader reads them.
  .filter((file) => !readFileSync(path.join(PROJECT_ROOT, file)).includes(0));
const text = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');

// Built from pieces, so that this file does not say what it looks for.
const OUTSIDE_DOCUMENT = ['CONTRACT', 'md'].join('.');
const ISSUE = ['iss', 'ue'].join('');
const HASH = '#';
/** The tracker's word and a number, in any case, singular or plural, or a bare hash and number. */
const TRACKER_NUMBER = new RegExp(
  [String.raw`\b${ISSUE}s?\s+#?\d+`, String.raw`(?<![\w&#/:-]|:\s)${HASH}\d+(?![\w-])`].join('|'),
  'i',
);

test('the pattern catches tracker numbers and not ordinary words', () => {
  const cited = [
    `see ${ISSUE} 17`,
    `${ISSUE}s 15 and 16`,
    `I${ISSUE.slice(1)} 10, item 8`,
    `${ISSUE} ${HASH}4`,
    `fixed in ${HASH}17`,
    `(${HASH}12)`,
  ];
  for (const text of cited) {
    assert.match(text, TRACKER_NUMBER, text);
  }
  for (const plain of ['an issue with 5 s', 'issues: none', 'privatenumber/tsx#548', '&#160;', 'color: #333', 'v1.2']) {
    assert.doesNotMatch(plain, TRACKER_NUMBER, plain);
  }
});

test('no file names a document outside the clone or a tracker number', () => {
  assert.ok(FILES.length > 100, `files checked: ${FILES.length}`);
  const found: string[] = [];
  for (const file of FILES) {
    text(file)
      .split('\n')
      .forEach((line, at) => {
        if (line.includes(OUTSIDE_DOCUMENT) || TRACKER_NUMBER.test(line))
          found.push(`${file}:${at + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, [], `cite docs/<page>.md#<heading> instead, and say why in words:\n${found.join('\n')}`);
});

test('every docs page a file of src, test, bench, scripts or soak cites exists, with the heading it names', () => {
  const slugsOf = new Map<string, Set<string>>();
  const broken: string[] = [];
  let cited = 0;
  for (const file of FILES.filter((f) => /^(src|test|bench|scripts|soak)\//.test(f))) {
    for (const [citation, page = '', anchor] of text(file).matchAll(/\bdocs\/([\w.-]+?\.md)(?:#([\w-]+))?/g)) {
      cited += 1;
      const pagePath = path.join(PROJECT_ROOT, 'docs', page);
      if (!existsSync(pagePath)) {
        broken.push(`${file}: ${citation}: no such page`);
        continue;
      }
      if (anchor === undefined) continue;
      const slugs = slugsOf.get(page) ?? headingSlugs(readFileSync(pagePath, 'utf8'));
      slugsOf.set(page, slugs);
      if (!slugs.has(anchor)) broken.push(`${file}: ${citation}: no such heading in docs/${page}`);
    }
  }
  assert.ok(cited > 50, `citations found: ${cited}`);
  assert.deepEqual(broken, []);
});
