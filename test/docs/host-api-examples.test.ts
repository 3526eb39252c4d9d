import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type HostApiServer, hostRecord, startHostApiServer } from '../support/host-api.js';
import { cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';

// The examples of docs/host-api.md, run as the page writes them against the real server over
// TLS: its curl lines in a shell, its Python client with python3. Each sh block is read from
// the page, so neither the page nor this test can drift from the other.
const PAGE = readFileSync(path.join(PROJECT_ROOT, 'docs', 'host-api.md'), 'utf8');

/** The lines of the fenced `sh` block right after `<!-- marker -->`, continuations joined. */
function shBlock(marker: string): string {
  const found = new RegExp(`<!-- ${marker} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(PAGE)?.[1];
  assert.ok(found !== undefined, `docs/host-api.md has no sh block after <!-- ${marker} -->`);
  return found;
}

function missing(command: string): string | false {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return `${command} is not installed here`;
  }
}

let server: HostApiServer;
const work = makeTempDir('host-examples');

before(async () => {
  server = await startHostApiServer();
});

after(async () => {
  await server.stop();
  work.remove();
});

/** Runs a block in bash from a folder holding `data/tls/cert.pem` (the server's), with the page's variables set. */
function runBlock(script: string, extraEnv: Record<string, string> = {}): string {
  return execFileSync('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: work.dir,
    encoding: 'utf8',
    env: {
      ...cleanEnv(),
      HOST_API: server.hostUrl,
      MEAL_EXPORT_SERVICE_TOKEN: server.token,
      ...extraEnv,
    },
  });
}

/** Answers printed one after the other, as JSON values. */
function jsonValues(output: string): Array<Record<string, unknown>> {
  return output
    .replace(/}\s*{/g, '}\n{')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('docs/host-api.md, run', () => {
  before(() => {
    execFileSync('mkdir', ['-p', path.join(work.dir, 'data', 'tls')]);
    writeFileSync(
      path.join(work.dir, 'data', 'tls', 'cert.pem'),
      readFileSync(path.join(server.dir, 'tls', 'cert.pem')),
    );
  });

  test('the curl lines save, read and delete a meal', { skip: missing('curl') }, () => {
    const answers = jsonValues(runBlock(shBlock('host-curl').replace(/u_42/g, 'docs_curl')));
    assert.deepEqual(
      answers.map((answer) => answer.outcome ?? answer.sourceVersion),
      ['created', 7, 'deleted'],
    );
  });

  test('the import line imports a JSON Lines file', { skip: missing('curl') }, () => {
    const lines = ['i1', 'i2'].map((id) => JSON.stringify({ id, ...hostRecord() })).join('\n');
    writeFileSync(path.join(work.dir, 'meals.jsonl'), `${lines}\n`);
    const [answer] = jsonValues(runBlock(shBlock('host-import').replace(/u_42/g, 'docs_import')));
    assert.deepEqual(answer, { imported: 2, created: 2, updated: 0, unchanged: 0, stale: 0 });
  });

  test('the Python client, with the standard library only', { skip: missing('python3') }, () => {
    // The exports name this test's server; the token comes from the environment, as the page says.
    const script = shBlock('host-python')
      .split('\n')
      .filter((line) => !line.startsWith('export '))
      .join('\n')
      .replaceAll('docs/examples/host_client.py', path.join(PROJECT_ROOT, 'docs', 'examples', 'host_client.py'))
      .replace(/u_42/g, 'docs_python')
      // Meal ids are unique across users: the curl test's meal has the page's id.
      .replace(/m_1001/g, 'py_1001');
    const env = {
      MEAL_EXPORT_HOST_API: server.hostUrl,
      MEAL_EXPORT_CA: path.join(work.dir, 'data', 'tls', 'cert.pem'),
    };
    const [saved, deleted, got] = jsonValues(runBlock(script, env));
    assert.equal(saved?.outcome, 'created');
    assert.deepEqual(deleted, { id: 'py_1001', outcome: 'deleted' });
    assert.deepEqual([got?.deleted, got?.sourceVersion], [true, 8]);
    const exports = shBlock('host-python')
      .split('\n')
      .filter((line) => line.startsWith('export '));
    assert.match(exports.join('\n'), /MEAL_EXPORT_HOST_API=.*MEAL_EXPORT_CA=/, 'the page sets what the script reads');
  });

  test(
    'a stale save through the Python client answers stale; an error exits 1 with the JSON body',
    { skip: missing('python3') },
    () => {
      const client = path.join(PROJECT_ROOT, 'docs', 'examples', 'host_client.py');
      const env = {
        MEAL_EXPORT_HOST_API: server.hostUrl,
        MEAL_EXPORT_CA: path.join(work.dir, 'data', 'tls', 'cert.pem'),
      };
      const record = JSON.stringify({ type: 'snack', date: '2026-11-25T16:00:00Z' });
      const run = (args: string) => runBlock(`python3 ${client} ${args}`, env);
      assert.equal(jsonValues(run(`save py_u m '${record}' 5`))[0]?.outcome, 'created');
      assert.equal(jsonValues(run(`save py_u m '${record}' 4`))[0]?.outcome, 'stale');
      const failed = (() => {
        try {
          run(`save py_u m '{"type":"tea","date":"2026-11-25T16:00:00Z"}'`);
          return undefined;
        } catch (error) {
          return error as { status: number; stderr: string };
        }
      })();
      assert.equal(failed?.status, 1);
      assert.equal((JSON.parse(failed?.stderr ?? '{}') as { error: { param: string } }).error.param, 'type');
    },
  );

  test(
    'bodies over the limit: the Python client, which sends its whole body before it reads, reads the 413 every time',
    { skip: missing('python3') },
    () => {
      const client = path.join(PROJECT_ROOT, 'docs', 'examples');
      const lines = path.join(work.dir, 'seventy.jsonl');
      const line = `${JSON.stringify({ id: 'big', ...hostRecord({ description: 'x'.repeat(1000) }) })}\n`;
      writeFileSync(lines, line.repeat(Math.ceil((70 * 1024 * 1024) / line.length)));
      // 20 saves of 1.5 MiB, one of 8 MiB, an import of 70 MiB: each a 413 read as JSON, never a broken pipe.
      const script = [
        'import json, sys',
        `sys.path.insert(0, ${JSON.stringify(client)})`,
        'import host_client',
        'codes = []',
        'def attempt(call):',
        '    try:',
        '        call()',
        '        codes.append("accepted")',
        '    except host_client.HostApiError as error:',
        "        codes.append(f\"{error.status} {error.body['error']['code']}\")",
        '    except host_client.NetworkError as error:',
        '        codes.append(f"network error: {error}")',
        'record = {"type": "lunch", "date": "2026-11-25T12:30:00Z"}',
        'for size in [int(1.5 * 1024 * 1024)] * 20 + [8 * 1024 * 1024]:',
        '    attempt(lambda: host_client.save("py_big", "py_big_1", {**record, "description": "x" * size}))',
        `attempt(lambda: host_client.import_file("py_big", ${JSON.stringify(lines)}))`,
        'print(json.dumps(codes))',
      ].join('\n');
      const env = {
        ...cleanEnv(),
        MEAL_EXPORT_HOST_API: server.hostUrl,
        MEAL_EXPORT_SERVICE_TOKEN: server.token,
        MEAL_EXPORT_CA: path.join(work.dir, 'data', 'tls', 'cert.pem'),
      };
      const output = execFileSync('python3', ['-c', script], { encoding: 'utf8', env, maxBuffer: 1024 * 1024 });
      const codes = JSON.parse(output) as string[];
      assert.deepEqual(codes, Array(22).fill('413 request_too_large'));
    },
  );

  test('a network error is one line, not a traceback', { skip: missing('python3') }, () => {
    const client = path.join(PROJECT_ROOT, 'docs', 'examples', 'host_client.py');
    const env = {
      ...cleanEnv(),
      // A port nothing listens on: the listener's own, after the test server that had it is gone.
      MEAL_EXPORT_HOST_API: 'https://127.0.0.1:1',
      MEAL_EXPORT_SERVICE_TOKEN: server.token,
    };
    const failed = (() => {
      try {
        execFileSync('python3', [client, 'get', 'u', 'm'], { encoding: 'utf8', env, stdio: 'pipe' });
        return undefined;
      } catch (error) {
        return error as { status: number; stderr: string };
      }
    })();
    assert.equal(failed?.status, 1);
    assert.match(failed?.stderr ?? '', /^network error: .*refused.*\n$/i);
  });
});
