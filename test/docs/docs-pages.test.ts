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

/** The one set of ports every page's examples use, by listener. */
const PORTS = { api: DEFAULT_PORT, app: '8444', hostApi: '8445' } as const;
/** The API port of a second instance started beside the first in one block (the scale-out's B). */
const BESIDE_PORT = '8543';
const KNOWN_PORTS: ReadonlySet<string> = new Set([...Object.values(PORTS), BESIDE_PORT]);

interface Server {
  readonly command: string;
  /** Where it stands among the servers its code block starts side by side: 0 for the first. */
  readonly beside: number;
  readonly api: string;
  readonly app: string | undefined;
  readonly hostApi: string | undefined;
  readonly admin: string | undefined;
}

/** Each server a page starts (`npm start` and `… serve …` lines of its code blocks) and its ports. */
function serversOf(markdown: string): Server[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  return blocks.flatMap((block) =>
    block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((command) => /\bnpm start\b|\bmeal-export serve\b/.test(command))
      .map((command, beside) => {
        const flag = (name: string) => new RegExp(`--${name}[ =](\\d+)`).exec(command)?.[1];
        const [app, hostApi, admin] = [flag('app-port'), flag('host-api-port'), flag('admin-port')];
        return { command, beside, api: flag('port') ?? DEFAULT_PORT, app, hostApi, admin };
      }),
  );
}

test('every page starts its servers on one set of ports: the API on 8443, the page on 8444, the host API on 8445', () => {
  const servers = [...PAGES].flatMap(([page, markdown]) => serversOf(markdown).map((server) => ({ page, ...server })));
  assert.ok(servers.length >= 6, `servers found: ${servers.map((s) => s.command).join('\n')}`);
  const listeners: readonly string[] = Object.values(PORTS);
  for (const { page, command, beside, api, app, hostApi, admin } of servers) {
    const where = `${page}: ${command}`;
    // A second instance started beside the first in one block cannot share its port: it takes one of its own.
    if (beside === 0) assert.equal(api, PORTS.api, where);
    else assert.equal(api, BESIDE_PORT, `${where}: an instance beside another takes a port of its own`);
    if (app !== undefined) assert.equal(app, PORTS.app, where);
    if (hostApi !== undefined) assert.equal(hostApi, PORTS.hostApi, where);
    if (admin !== undefined) assert.ok(!listeners.includes(admin), where);
  }
});

test('every address a page or an example names is on the port of its listener', () => {
  const examples = readdirSync(path.join(PROJECT_ROOT, 'docs', 'examples')).map((name) => `docs/examples/${name}`);
  const texts = [...PAGES, ...examples.map((file) => [file, readFileSync(path.join(PROJECT_ROOT, file), 'utf8')])];
  for (const [file, text] of texts) {
    for (const [address, port] of String(text).matchAll(/(?:127\.0\.0\.1|localhost):(8\d{3})\b/g)) {
      assert.ok(port !== undefined && KNOWN_PORTS.has(port), `${file}: ${address}`);
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

test('curl in the docs trusts the certificate as the README teaches (--cacert), never skips the check (-k)', () => {
  for (const [page, markdown] of PAGES) {
    for (const [line] of markdown.matchAll(/^.*\bcurl\b.*$/gm)) {
      assert.doesNotMatch(line, /\s(-k|--insecure)\b/, `${page}: ${line}`);
    }
  }
});

test("the examples write their files under data/, which git ignores, not into the clone's root", () => {
  assert.match(readFileSync(path.join(PROJECT_ROOT, '.gitignore'), 'utf8'), /^data\/$/m);
  for (const [page, markdown] of PAGES) {
    const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    // A command continued with a backslash is one line.
    for (const line of blocks.flatMap((block) => block.replace(/\\\n\s*/g, ' ').split('\n'))) {
      if (!/\bmeal-export pull\b|sync_meals\.py/.test(line)) continue;
      for (const [, flag, file] of line.matchAll(/--(state|out|copy)[ =](\S+)/g)) {
        assert.ok(file?.startsWith('data/'), `${page}: --${flag} ${file} in\n  ${line}`);
      }
    }
  }
});

test('the README says what the first npx costs, and its quick way runs a command as written', () => {
  const readme = PAGES.get('README.md') ?? '';
  assert.match(readme.replace(/\s+/g, ' '), /The first `npx meal-export` in a clone takes about 11 s/);
  const quick = /The quick way, the same command at once: `(node dist\/bin\.js) …`/.exec(readme.replace(/\s+/g, ' '));
  assert.ok(quick?.[1] !== undefined, 'the README shows the quick way');
  const started = Date.now();
  const help = execFileSync('sh', ['-c', `${quick[1]} --help`], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  assert.match(help, /keys create/);
  assert.ok(Date.now() - started < 5_000, 'at once, without npx');
});
