import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { PROJECT_ROOT } from '../support/project.js';

const PACKAGE = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

/** The subcommands of each group, as docs/cli.md names them. */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  keys: ['create', 'list', 'revoke'],
  'service-tokens': ['create', 'list', 'revoke'],
  apps: ['create', 'list', 'delete', 'rotate-secret'],
  webhooks: ['create', 'list', 'delete', 'enable', 'rotate-secret', 'test', 'attempts'],
  users: ['login-link', 'erase'],
  meals: ['import', 'delete', 'prune', 'export'],
};

/** The `--flag` names a help text lists in its options table. */
function listedFlags(help: string): string[] {
  const table = help.slice(help.indexOf('\noptions:\n'));
  return [...table.matchAll(/^\s+(?:-\w, )?\s*--([a-z-]+)/gm)].map((m) => m[1] ?? '');
}

describe('a command line people can learn from itself', () => {
  test('--version prints the package version and exits 0', async () => {
    const run = await runCli(['--version']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${PACKAGE.version}\n`);
    assert.equal(run.stderr, '');
  });

  test('--help lists every command and every subcommand, meals prune and the webhooks ones included', async () => {
    const run = await runCli(['--help']);
    assert.equal(run.code, 0, run.stderr);
    for (const command of ['serve', 'seed', 'pull']) assert.match(run.stdout, new RegExp(`^  ${command} `, 'm'));
    for (const [group, subs] of Object.entries(GROUPS)) {
      const lines = run.stdout.split('\n').filter((line) => line.startsWith(`  ${group} `));
      const listed = lines.flatMap((line) => (line.trim().split(/\s+/)[1] ?? '').split('|'));
      assert.deepEqual([...listed].sort(), [...subs].sort(), `${group} in:\n${run.stdout}`);
    }
    assert.match(run.stdout, /MEAL_EXPORT_DATABASE_URL/);
    assert.match(run.stdout, /MEAL_EXPORT_API_KEY/);
    for (const name of ['PORT', 'ADMIN_PORT', 'APP_PORT']) assert.match(run.stdout, new RegExp(`MEAL_EXPORT_${name} `));
  });

  test('every group answers --help with exit 0 and a usage line per subcommand', async () => {
    for (const [group, subs] of Object.entries(GROUPS)) {
      const run = await runCli([group, '--help']);
      assert.equal(run.code, 0, `${group} --help: ${run.stderr}`);
      for (const sub of subs) assert.match(run.stdout, new RegExp(`meal-export ${group} ${sub}\\b`), group);
    }
  });

  test('keys create --help lists each flag with its default and the environment variable it reads', async () => {
    const run = await runCli(['keys', 'create', '--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(listedFlags(run.stdout), ['user', 'name', 'expires-in', 'db', 'direct-db', 'json', 'help']);
    assert.match(run.stdout, /--user ID .*\(required\)/);
    assert.match(run.stdout, /--name NAME .*\(default: ""\)/);
    assert.match(run.stdout, /--expires-in \S+ .*\(default: never\)/);
    assert.match(run.stdout, /--db \S+ .*\(default: \.\/data\/meal-export\.db; env: MEAL_EXPORT_DATABASE_URL\)/);
    assert.match(run.stdout, /--json .*\(default: false\)/);
  });

  test('every subcommand and command answers --help with its flags, each with a default or marked required', async () => {
    const commands = [
      ['serve'],
      ['seed'],
      ['pull'],
      ...Object.entries(GROUPS).flatMap(([g, subs]) => subs.map((s) => [g, s])),
    ];
    for (const command of commands) {
      const run = await runCli([...command, '--help']);
      const label = command.join(' ');
      assert.equal(run.code, 0, `${label}: ${run.stderr}`);
      assert.ok(listedFlags(run.stdout).includes('db'), `${label} lists --db`);
      for (const line of run.stdout.split('\n').filter((l) => /^\s+(-\w, )?\s*--/.test(l))) {
        assert.match(line, /\((required|default: [^)]*)/, `${label}: ${line}`);
      }
    }
    const serve = await runCli(['serve', '--help']);
    // The usage line names every flag --help lists but the ones every command has for itself.
    const usage = serve.stdout.split('\n')[0] ?? '';
    for (const flag of listedFlags(serve.stdout).filter((name) => !['json', 'help'].includes(name))) {
      assert.ok(
        usage.includes(`[--${flag} `) || usage.includes(`[--${flag}]`),
        `serve's usage line lacks --${flag}: ${usage}`,
      );
    }
    assert.match(serve.stdout, /--port N .*\(default: 8443; env: MEAL_EXPORT_PORT\)/);
    assert.match(serve.stdout, /--admin-port N .*env: MEAL_EXPORT_ADMIN_PORT/);
    assert.match(serve.stdout, /--app-port N .*env: MEAL_EXPORT_APP_PORT/);
    assert.match(serve.stdout, /--tls-cert FILE .*env: MEAL_EXPORT_TLS_CERT/);
    assert.match(serve.stdout, /--log-level LEVEL .*default: info; env: MEAL_EXPORT_LOG_LEVEL/);
    const pull = await runCli(['pull', '--help']);
    assert.match(pull.stdout, /--key-file FILE .*env: MEAL_EXPORT_API_KEY/);
  });

  test('an unknown option is one line that names it and the help to read, exit 2', async () => {
    const run = await runCli(['keys', 'create', '--frobnicate']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'meal-export: unknown option --frobnicate (see meal-export keys create --help)\n');
    const serve = await runCli(['serve', '-x']);
    assert.equal(serve.stderr, 'meal-export: unknown option -x (see meal-export serve --help)\n');
    const missing = await runCli(['meals', 'export', '--user']);
    assert.equal(missing.stderr, 'meal-export: --user needs a value (see meal-export meals export --help)\n');
  });

  test('a missing or unknown subcommand names the ones there are, exit 2', async () => {
    const run = await runCli(['keys']);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'meal-export: missing keys subcommand: expected create, list, revoke (see meal-export keys --help)\n',
    );
  });
});
