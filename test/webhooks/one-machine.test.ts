/**
 * docs/webhooks.md#trying-it-on-one-machine, end to end: the page's openssl line makes the
 * certificate, the page's receiver (the one of #a-complete-receiver, read from the page) serves
 * HTTPS on it, the built `serve --webhook-allow-private --webhook-ca cert.pem` calls it, and
 * the endpoint, the key and the import are the page's own commands. Each line is checked
 * against what this test runs, so neither can drift.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { cliJson, runCli } from '../support/cli.js';
import { freePort } from '../support/free-port.js';
import { cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';
import { newUserId, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';

const DOCS = readFileSync(path.join(PROJECT_ROOT, 'docs', 'webhooks.md'), 'utf8');

/** The lines of the fenced `sh` block right after `<!-- marker -->`. */
function linesAfter(marker: string): string[] {
  const found = new RegExp(`<!-- ${marker} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(DOCS)?.[1];
  assert.ok(found !== undefined, `docs/webhooks.md has no sh block after <!-- ${marker} -->`);
  return found.trim().split('\n');
}

/** The page's receiver: its one TypeScript block that serves HTTPS. */
function receiverSource(): string {
  const blocks = [...DOCS.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const receivers = blocks.filter((block) => block.includes('createHttpsServer'));
  assert.equal(receivers.length, 1, 'one receiver on the page');
  return receivers[0] ?? '';
}

/** `meal-export …` as arguments, with this test's user, receiver port and store. */
function cliArgs(line: string, userId: string, port: number, db: string): string[] {
  assert.match(line, /^meal-export /);
  return line
    .split(' ')
    .slice(1)
    .map((arg) => (arg === 'u_1' ? userId : arg.replace('127.0.0.1:3443', `127.0.0.1:${port}`)))
    .concat('--db', db);
}

function opensslVersion(): string | undefined {
  try {
    return execFileSync('openssl', ['version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

const OPENSSL = opensslVersion();
const SKIP = OPENSSL === undefined ? 'openssl is not on this machine: the recipe makes its certificate with it' : false;
if (SKIP) console.log(`# skipped: ${SKIP}`);

let folder: { dir: string; remove: () => void };
let server: TestServer | undefined;
let receiver: ChildProcess | undefined;

before(() => {
  folder = makeTempDir('one-machine');
});

after(async () => {
  if (receiver?.exitCode === null) {
    const exited = new Promise((resolve) => receiver?.once('exit', resolve));
    receiver.kill('SIGTERM');
    await exited;
  }
  await server?.stop();
  folder.remove();
});

test('the page lists the commands this test runs, in this order', () => {
  const [openssl, serve] = linesAfter('one-machine');
  assert.match(String(openssl), /^openssl req -x509 .*-addext subjectAltName=DNS:localhost,IP:127\.0\.0\.1 /);
  assert.match(String(openssl), / -keyout key\.pem -out cert\.pem$/);
  // The test's server listens on a free port rather than the page's --port.
  assert.equal(serve, 'meal-export serve --port 8443 --webhook-allow-private --webhook-ca cert.pem');
  const [create, key, run] = linesAfter('one-machine-receiver');
  assert.equal(create, 'meal-export webhooks create --user u_1 --url https://127.0.0.1:3443/hook');
  assert.equal(key, 'meal-export keys create --user u_1');
  assert.match(String(run), /^(\w+=\S+ )+npx tsx receiver\.ts$/);
  const [echo, importLine] = linesAfter('one-machine-import');
  assert.match(String(echo), /^echo '\{.*\}' > meals\.jsonl$/);
  assert.equal(importLine, 'meal-export meals import --user u_1 meals.jsonl');
});

test('a receiver on its own certificate gets a verified call for an import, and syncs it', { skip: SKIP }, async () => {
  const { dir } = folder;
  const [openssl] = linesAfter('one-machine');
  execFileSync('sh', ['-c', String(openssl)], { cwd: dir, stdio: 'pipe' });
  const cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  assert.match(
    execFileSync('openssl', ['x509', '-noout', '-ext', 'subjectAltName'], { input: cert }).toString(),
    /IP Address:127\.0\.0\.1/,
  );

  server = await startTestServer({
    extraArgs: ['--webhook-allow-private', '--webhook-ca', path.join(dir, 'cert.pem')],
  });
  const userId = newUserId('onemachine');
  const port = await freePort();
  const [create, keyLine, run] = linesAfter('one-machine-receiver');
  const endpoint = await cliJson<{ id: string; secret: string }>(cliArgs(String(create), userId, port, server.db));
  const { key } = await cliJson<{ key: string }>(cliArgs(String(keyLine), userId, port, server.db));

  // The SDK as the page's project has it installed: the package, over this build.
  const sdk = path.join(dir, 'node_modules', 'meal-export-client');
  mkdirSync(sdk, { recursive: true });
  symlinkSync(path.join(PROJECT_ROOT, 'dist'), path.join(sdk, 'dist'));
  const exports = { '.': { types: './dist/client/index.d.ts', default: './dist/client/index.js' } };
  writeFileSync(
    path.join(sdk, 'package.json'),
    JSON.stringify({ name: 'meal-export-client', type: 'module', exports }),
  );
  writeFileSync(path.join(dir, 'receiver.ts'), receiverSource());

  const documented = Object.fromEntries(
    [...String(run).matchAll(/(\w+)=(\S+) /g)].map((m) => [String(m[1]), String(m[2])]),
  );
  const env: Record<string, string> = {
    ...documented,
    PORT: String(port),
    WEBHOOK_SECRET: endpoint.secret,
    MEAL_EXPORT_URL: server.url,
    MEAL_EXPORT_CA: path.join(server.dir, 'tls', 'cert.pem'),
    MEAL_EXPORT_API_KEY: key,
  };
  assert.deepEqual(Object.keys(env), Object.keys(documented), 'the page sets what the receiver reads');
  let output = '';
  receiver = spawn(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['receiver.ts'], {
    cwd: dir,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  receiver.stdout?.on('data', (d: Buffer) => (output += d.toString('utf8')));
  receiver.stderr?.on('data', (d: Buffer) => (output += d.toString('utf8')));
  await waitFor(
    () => `the receiver to listen; it wrote:\n${output}`,
    () => output.includes('receiving on https://'),
    20_000,
  );

  const [echo, importLine] = linesAfter('one-machine-import');
  execFileSync('sh', ['-c', String(echo)], { cwd: dir });
  const args = cliArgs(String(importLine), userId, port, server.db).map((arg) =>
    arg === 'meals.jsonl' ? path.join(dir, arg) : arg,
  );
  const imported = await runCli(args);
  assert.equal(imported.code, 0, imported.stderr);

  await waitFor(
    () => `the verified call and the sync; the receiver wrote:\n${output}`,
    () => /^1 changes$/m.test(output),
    10_000,
  );
  const verified = /^verified meals\.changed (msg_\S+)$/m.exec(output)?.[1];
  assert.ok(verified, output);
  const attempts = await cliJson<{ status: number | null; eventId: string }[]>([
    'webhooks',
    'attempts',
    endpoint.id,
    '--db',
    server.db,
  ]);
  assert.deepEqual(
    attempts.map((a) => [a.status, a.eventId]),
    [[204, verified]],
  );
  const position = JSON.parse(readFileSync(path.join(dir, 'position.json'), 'utf8')) as Record<string, unknown>;
  assert.ok(typeof position.lastModifiedSince === 'string', 'the receiver saved its position');
  const copy = JSON.parse(readFileSync(path.join(dir, 'copy.json'), 'utf8')) as Record<string, { title: string }>;
  assert.deepEqual(
    Object.values(copy).map((meal) => meal.title),
    ['Porridge'],
    'the receiver keeps its copy',
  );

  // The person leaves: the page's erase, and the receiver deletes its copy.
  const [erase] = linesAfter('one-machine-erase');
  const erased = await runCli(cliArgs(String(erase), userId, port, server.db));
  assert.equal(erased.code, 0, erased.stderr);
  await waitFor(
    () => `the user.erased call; the receiver wrote:\n${output}`,
    () => output.includes(`erased ${userId}: copy deleted`),
    10_000,
  );
  assert.match(output, /^verified user\.erased msg_\S+$/m);
  assert.equal(existsSync(path.join(dir, 'copy.json')), false, 'the copy is deleted');
  assert.equal(existsSync(path.join(dir, 'position.json')), false, 'and the position');
});
