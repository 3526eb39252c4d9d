/**
 * The documented path for another project (docs/sdk.md#the-sdk-in-another-project): `npm run
 * pack:client`, a fresh `npm init -y` project, the tarball installed, the page's example
 * type-checked under TypeScript's own strict settings and run against a real server. The commands
 * are the page's own lines (checked below) and the example is read from the page, so neither can
 * drift.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { blockAfter as blockOf } from '../support/doc-blocks.js';
import { cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';
import { makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';

const execFileAsync = promisify(execFile);

/** execFile, whose failure message carries the command's output (tsc writes its errors to stdout). */
async function run(file: string, args: readonly string[], options: Parameters<typeof execFileAsync>[2] = {}) {
  try {
    return await execFileAsync(file, args, { ...options, encoding: 'utf8' });
  } catch (error) {
    const failed = error as Error & ExitError;
    failed.message = `${[file, ...args].join(' ')} exited ${failed.code}:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`;
    throw failed;
  }
}
const DOCS = readFileSync(path.join(PROJECT_ROOT, 'docs', 'sdk.md'), 'utf8');
const WEBHOOK_DOCS = readFileSync(path.join(PROJECT_ROOT, 'docs', 'webhooks.md'), 'utf8');
const { version } = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
const DOCS_TARBALL = `/path/to/meal-export/dist-client/meal-export-client-${version}.tgz`;

/** The commands this test runs, in order, each a line of the page's shell blocks. */
const SETUP = [
  'npm init -y',
  'npm pkg set type=module',
  `npm install ${DOCS_TARBALL}`,
  'npm install --save-dev typescript@5 tsx@4 @types/node@20',
  'npx tsc --init --types node',
  'npx tsc --noEmit',
];
const RUN = 'npx tsx sync.ts';

/** The fenced block of `language` right after `<!-- marker -->` in docs/sdk.md. */
const blockAfter = (marker: string, language: string) => blockOf(DOCS, 'sdk.md', marker, language);

/** Every command line of the page's shell blocks, without its comment. */
function shellLines(): string[] {
  const blocks = [...DOCS.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  return blocks.flatMap((block) => block.split('\n')).map((line) => line.replace(/\s+#.*$|^#.*$/, '').trim());
}

// npm, when this runs under `npm test`, passes its own settings down as npm_* variables (the
// project's prefix among them): the temporary project must get a plain npm, with only where
// the cache and registry are.
const NPM_KEPT = /^npm_config_(cache|registry|userconfig|globalconfig|proxy|https_proxy|noproxy|cafile|offline)$/i;
function projectEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv(extra);
  for (const name of Object.keys(env)) if (/^npm_/i.test(name) && !NPM_KEPT.test(name)) delete env[name];
  return env;
}

let server: ServedApp;
let project: { dir: string; remove: () => void };
let tarball: string;

before(async () => {
  project = makeTempDir('sdk-project');
  [server, tarball] = await Promise.all([
    startInProcessServer(),
    // The script's last line is the tarball's path (npm's own header lines come first).
    run('npm', ['run', 'pack:client'], { cwd: PROJECT_ROOT, env: projectEnv() }).then(
      ({ stdout }) => stdout.trim().split('\n').at(-1) ?? '',
    ),
  ]);
});

after(async () => {
  await server?.stop();
  project?.remove();
});

/** One documented command in the temporary project; npm installs take the cache first. */
async function inProject(command: string, env: Record<string, string> = {}) {
  const line = command
    .replace(DOCS_TARBALL, tarball)
    .replace(/^npm install /, 'npm install --prefer-offline --no-audit --no-fund ');
  return run('sh', ['-c', line], { cwd: project.dir, env: projectEnv(env), timeout: 120_000 });
}

/** What execFile rejects with when the command exits non-zero. */
interface ExitError {
  readonly code?: number;
  readonly stdout?: string;
  readonly stderr?: string;
}

/** Rejects unless the command fails and its output (tsc writes errors to stdout) matches. */
async function failsWith(command: Promise<unknown>, expected: RegExp): Promise<void> {
  await assert.rejects(command, (error: ExitError) => {
    assert.match(`${error.stdout ?? ''}${error.stderr ?? ''}`, expected);
    return true;
  });
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(path.join(project.dir, file), 'utf8'));
}

test('the page documents exactly the commands this test runs, and the tarball is where it says', () => {
  const lines = shellLines();
  for (const command of ['npm run pack:client', ...SETUP, RUN]) {
    assert.ok(lines.includes(command), `docs/sdk.md has no line \`${command}\``);
  }
  assert.equal(path.basename(tarball), path.basename(DOCS_TARBALL));
  assert.equal(path.dirname(tarball), path.join(PROJECT_ROOT, 'dist-client'));
  for (const variable of ['MEAL_EXPORT_URL', 'MEAL_EXPORT_API_KEY', 'MEAL_EXPORT_CA']) {
    assert.match(blockAfter('sdk-example', 'ts'), new RegExp(variable));
  }
});

test("a fresh npm init project installs the tarball and type-checks the page's example under strict", async () => {
  for (const command of SETUP.slice(0, -1)) await inProject(command);
  const installed = readJson('node_modules/meal-export-client/package.json') as Record<string, unknown>;
  assert.equal(installed.name, 'meal-export-client');
  assert.equal(installed.version, version);
  assert.deepEqual(installed.dependencies, undefined, 'the SDK has no dependency');
  const config = readFileSync(path.join(project.dir, 'tsconfig.json'), 'utf8');
  assert.match(config, /^\s*"strict": true/m);
  const example = blockAfter('sdk-example', 'ts');
  writeFileSync(path.join(project.dir, 'sync.ts'), example);
  // Every other TypeScript block that uses the SDK, here or in the webhooks page (its receiver), too.
  const others = [...`${DOCS}\n${WEBHOOK_DOCS}`.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .filter((block) => block !== example && block.includes("from 'meal-export-client'"));
  others.forEach((block, i) => writeFileSync(path.join(project.dir, `example-${i + 1}.ts`), block));
  await inProject('npx tsc --noEmit');
  // The check can fail: a type error in the same project is reported.
  writeFileSync(
    path.join(project.dir, 'broken.ts'),
    "import { isTombstone } from 'meal-export-client';\nisTombstone(1);\n",
  );
  await failsWith(inProject('npx tsc --noEmit'), /broken\.ts.*error TS2345/);
  await inProject('rm broken.ts');
});

test("the SDK's types stand alone: no @types/node (types: []), every declaration checked", async () => {
  const dir = path.join(project.dir, 'types-alone');
  await inProject('mkdir types-alone');
  const compilerOptions = { strict: true, module: 'nodenext', types: [], skipLibCheck: false, noEmit: true };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts'] }));
  writeFileSync(
    path.join(dir, 'check.ts'),
    [
      "import * as sdk from 'meal-export-client';",
      "const client: sdk.MealExportClient = sdk.createMealExportClient({ baseUrl: 'https://h', apiKey: 'k', ca: new Uint8Array() });",
      "export const event: sdk.WebhookEvent = sdk.verifyWebhook('whsec_AAAA', {}, new Uint8Array());",
      'export const steps: AsyncGenerator<sdk.SyncStep> = client.sync({ signal: new AbortController().signal });',
      'export type Everything = typeof sdk;',
    ].join('\n'),
  );
  const tsc = () => run(process.execPath, [path.join(project.dir, 'node_modules/typescript/bin/tsc'), '-p', dir]);
  await tsc();
  // And Node's types are really absent there: a file that names Buffer fails.
  writeFileSync(path.join(dir, 'check.ts'), 'export const bytes: Buffer | undefined = undefined;\n');
  await failsWith(tsc(), /check\.ts.*error TS2591: Cannot find name 'Buffer'/);
});

test('the example syncs from a real server over TLS, keeps its position, and prints what it did', async () => {
  const userId = newUserId('sdkpkg');
  const { key } = await server.createKey(userId);
  const meals = [makeMeal(), makeMeal(), makeMeal()];
  await server.importMeals(userId, meals);
  const env = {
    MEAL_EXPORT_URL: server.url,
    MEAL_EXPORT_API_KEY: key,
    MEAL_EXPORT_CA: path.join(server.dir, 'tls', 'cert.pem'),
  };
  const ids = (list: readonly Record<string, unknown>[]) => list.map((m) => String(m.id)).sort();
  const copy = () => (readJson('meals.json') as [string, { id: string }][]).map(([id]) => id).sort();

  const first = await inProject(RUN, env);
  // A full pass, then the changes since its first page was read (Meals-Last-Modified + 1 ms): none.
  assert.match(first.stdout, /^page 1: 3 items, meals in the copy: 3\npage 2: 0 items, meals in the copy: 3$/m);
  assert.match(first.stdout, /^done: 2 pages, meals received: 3, deletions: 0$/m);
  assert.match(first.stdout, /^page 2: .*\nverified: count=3, sum=[0-9a-f]{32}$/m, 'checked at the catch-up');
  assert.deepEqual(copy(), ids(meals));
  const position = readJson('position.json') as { lastModifiedSince: string; followSince: unknown };
  assert.equal(position.followSince, null, 'the first pass is over: the position follows changes');
  assert.match(first.stdout, new RegExp(`position saved in position.json: .*"${position.lastModifiedSince}"`));

  const second = await inProject(RUN, env);
  assert.match(second.stdout, /^done: 1 pages, meals received: 0, deletions: 0$/m, 'nothing new: nothing received');
  assert.deepEqual(copy(), ids(meals));

  const added = makeMeal();
  await server.importMeals(userId, [added]);
  await server.deleteMeal(userId, String(meals[0]?.id));
  const third = await inProject(RUN, env);
  assert.match(third.stdout, /^done: 1 pages, meals received: 1, deletions: 1$/m);
  assert.deepEqual(copy(), ids([...meals.slice(1), added]));

  // A meal taken out of the copy by hand: the catch-up's digest differs, the copy is rebuilt.
  writeFileSync(path.join(project.dir, 'meals.json'), JSON.stringify((readJson('meals.json') as unknown[]).slice(1)));
  const repaired = await inProject(RUN, env);
  assert.match(repaired.stdout, /^the copy \(count=2, sum=[0-9a-f]{32}\) differs from the server's \(count=3, /m);
  assert.match(repaired.stdout, /^verified: count=3, sum=[0-9a-f]{32}$/m);
  assert.deepEqual(copy(), ids([...meals.slice(1), added]));

  // Without its settings it says what is missing, in one line, and exits 2; a refused key is
  // one line too (no stack trace), exit 1, and leaves the saved position as it was.
  await assert.rejects(inProject(RUN), (error: ExitError) => {
    assert.equal(error.code, 2);
    assert.match(error.stderr ?? '', /^sync: set MEAL_EXPORT_URL and MEAL_EXPORT_API_KEY/m);
    return true;
  });
  const before = readJson('position.json');
  await assert.rejects(inProject(RUN, { ...env, MEAL_EXPORT_API_KEY: 'mxk_unknown' }), (error: ExitError) => {
    assert.equal(error.code, 1);
    assert.match(error.stderr ?? '', /^sync: Request failed with 401 invalid_api_key: GET \/v1\/meals$/m);
    assert.doesNotMatch(error.stderr ?? '', /^\s+at /m);
    return true;
  });
  assert.deepEqual(readJson('position.json'), before);
});
