import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../support/project.js';

// A comment that names a file sends its reader there: every file a comment of the code names
// exists, so that a file renamed or removed cannot leave readers looking for it. A path is found
// as written from the file's folder or any folder above it (a sibling folder's file named from
// src/storage/postgres), or a source file's from the root of src/; a bare name anywhere in the
// tree; a built `dist/…js` as its source.
// The docs' links are held by test/docs/docs-pages.test.ts.

/** Names in comments that are not this project's files: other projects' sources, cited for their behaviour. */
const OTHER_PROJECTS = new Set([
  '_tls_wrap.js', // Node's own TLS socket
  'connection.js', // postgres.js's connection
  'src/connection.js',
  'ipaddr.js', // the package's name
  'Node.js',
  'Errors.md', // fastify's error table
]);

const PATH_RE = /(?<![\w@./-])((?:[\w.-]+\/)*[\w-]+\.(?:ts|mjs|js|py|sql))\b/g;
const COMMENT_RE = /^\s*(?:\/\/|\/?\*|#)/;

const tracked = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const files = new Set(tracked);
const baseNames = new Set(tracked.map((file) => path.basename(file)));

function exists(named: string, from: string): boolean {
  const candidates = [named, named.startsWith('dist/') ? `src/${named.slice(5)}` : named];
  const forms = candidates.flatMap((candidate) => [candidate, candidate.replace(/\.js$/, '.ts')]);
  if (!named.includes('/')) return forms.some((form) => baseNames.has(path.basename(form)));
  // From a test, bench or script, `storage/…` is the source's: src/ is tried at the root too.
  if (forms.some((form) => files.has(path.normalize(path.join('src', form))))) return true;
  for (let folder = path.dirname(from); ; folder = path.dirname(folder)) {
    if (forms.some((form) => files.has(path.normalize(path.join(folder, form))))) return true;
    if (folder === '.' || folder === '/') return false;
  }
}

test('every file a comment of the code names exists', () => {
  const missing: string[] = [];
  for (const file of tracked) {
    if (!/^(src|test|bench|soak|scripts)\//.test(file) || !/\.(ts|mjs|js|py)$/.test(file)) continue;
    readFileSync(path.join(PROJECT_ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (!COMMENT_RE.test(line)) return;
        for (const [, named = ''] of line.matchAll(PATH_RE)) {
          if (OTHER_PROJECTS.has(named) || line.includes(`://${named}`)) continue;
          if (!exists(named, file)) missing.push(`${file}:${index + 1}: ${named}`);
        }
      });
  }
  assert.deepEqual(missing, []);
});
