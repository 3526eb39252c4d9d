import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { headingSlugs } from '../support/heading-slugs.js';
import { PROJECT_ROOT } from '../support/project.js';

/** The README and every page of docs/, by path from the project's root. */
const PAGES = new Map(
  ['README.md', ...readdirSync(path.join(PROJECT_ROOT, 'docs')).map((name) => `docs/${name}`)]
    .filter((page) => page.endsWith('.md'))
    .map((page) => [page, readFileSync(path.join(PROJECT_ROOT, page), 'utf8')]),
);
const DEFAULT_PORT = '8443';

/** Every Markdown page of the project (what a clone or the SDK's tarball carries), for the links check. */
const OUTSIDE = /^(node_modules|dist|dist-client|\.git|data)(\/|$)/;
const ALL_PAGES = new Map(
  readdirSync(PROJECT_ROOT, { recursive: true, encoding: 'utf8' })
    .filter((page) => page.endsWith('.md') && !OUTSIDE.test(page))
    .map((page) => [page, PAGES.get(page) ?? readFileSync(path.join(PROJECT_ROOT, page), 'utf8')]),
);

/** The ports each server a page starts listens on (`npm start` and `… serve …` lines of its code blocks). */
function serversOf(markdown: string): { command: string; ports: string[] }[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  return blocks
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((command) => /\bnpm start\b|\bmeal-export serve\b/.test(command))
    .map((command) => {
      const flag = (name: string) => new RegExp(`--${name}[ =](\\d+)`).exec(command)?.[1];
      const ports = [flag('port') ?? DEFAULT_PORT, flag('admin-port'), flag('app-port'), flag('host-api-port')];
      return { command, ports: ports.filter((p): p is string => p !== undefined) };
    });
}

test('the servers the README and the docs start listen on ports that do not collide', () => {
  // The same command on two pages is the same server, described twice.
  const servers = new Map([...PAGES.values()].flatMap(serversOf).map((server) => [server.command, server]));
  assert.ok(servers.size >= 4, `servers found: ${[...servers.keys()].join('\n')}`);
  const seen = new Map<string, string>();
  for (const { command, ports } of servers.values()) {
    for (const port of ports) {
      assert.ok(!seen.has(port), `port ${port} of\n  ${command}\nis already taken by\n  ${seen.get(port)}`);
      seen.set(port, command);
    }
  }
});

test('the docs stand alone: every relative link resolves inside the clone', () => {
  for (const page of ['SECURITY.md', 'scripts/client-package/README.md', 'docs/api.md']) {
    assert.ok(ALL_PAGES.has(page), `${page} is among the pages checked`);
  }
  for (const [page, markdown] of ALL_PAGES) {
    assert.doesNotMatch(markdown, /\.\.\/shared|CONTRACT\.md/, `${page} sends its reader outside the clone`);
    for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target === undefined || /^[a-z]+:/.test(target)) continue;
      const [file = '', anchor] = target.split('#');
      const resolved = file === '' ? page : path.join(path.dirname(page), file);
      assert.ok(existsSync(path.join(PROJECT_ROOT, resolved)), `${page} links to ${target}, which does not exist`);
      if (anchor !== undefined && resolved.endsWith('.md')) {
        const slugs = headingSlugs(ALL_PAGES.get(resolved) ?? readFileSync(path.join(PROJECT_ROOT, resolved), 'utf8'));
        assert.ok(slugs.has(anchor), `${page} links to ${target}: no such heading in ${resolved}`);
      }
    }
  }
});

test('the README stays a front page: short, with short lines', () => {
  const readme = PAGES.get('README.md') ?? '';
  assert.ok(readme.split('\n').length <= 120, `README.md has ${readme.split('\n').length} lines`);
  const longest = Math.max(...readme.split('\n').map((line) => line.length));
  assert.ok(longest <= 250, `README.md has a line of ${longest} characters`);
});

test('the README says how to change the port, by flag and by environment', () => {
  const readme = PAGES.get('README.md') ?? '';
  assert.match(readme, /`npm start -- --port \d+`/);
  assert.match(readme, /`MEAL_EXPORT_PORT=\d+ npm start`/);
});

test("the files the README's commands write land where git ignores them, not in git status", () => {
  const readme = PAGES.get('README.md') ?? '';
  const commands = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? '').split('\n'));
  const written = commands.flatMap((line) => [...line.replace(/#.*$/, '').matchAll(/(?:^|\s)>\s*([^\s&|;<>]+)/g)]);
  assert.ok(written.length > 0, 'the README writes a file (its meals to import)');
  for (const [, file = ''] of written) {
    // `git check-ignore` exits 0 for an ignored path and 1 for one git status would show.
    assert.doesNotThrow(
      () => execFileSync('git', ['check-ignore', '-q', file], { cwd: PROJECT_ROOT }),
      `the README writes ${file}, which git status would show`,
    );
  }
});
