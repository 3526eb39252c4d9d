import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type HostApiServer, hostRecord, startHostApiServer } from '../support/host-api.js';
import { freePort } from '../support/free-port.js';
import { BIN, cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';
import { waitFor } from '../support/wait-for.js';

// The examples of docs/host-api.md, run as the page writes them against the real server over
// TLS: its curl lines in a shell, its Python client with python3. Each sh block is read from
// the page, so neither the page nor this test can drift from the other.
const PAGE = readFileSync(path.join(PROJECT_ROOT, 'docs', 'host-api.md'), 'utf8');

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

/** Answers printed one after the other, as JSON values: each on a line of its own, as the API ends each with a newline. */
function jsonValues(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every `sh` block of the page, in order, with the marker before it. */
function pageBlocks(): Array<{ marker: string; script: string }> {
  return [...PAGE.matchAll(/<!-- ([a-z-]+) -->\s*```sh\n([\s\S]*?)```/g)].map((m) => ({
    marker: m[1] ?? '',
    script: m[2] ?? '',
  }));
}

/**
 * The root of a clone after `npm ci`, as the page's reader has one, with a `data` folder of its
 * own: `npx meal-export` runs the project's built bin from `node_modules/.bin` (the project's own
 * name is not copied: npm would look for its package where this folder has none), and
 * `docs/examples` is the project's.
 */
function cloneFolder(): string {
  const clone = path.join(work.dir, 'clone');
  mkdirSync(path.join(clone, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(path.join(clone, 'package.json'), '{"name":"meal-export-docs-run","private":true}\n');
  symlinkSync(BIN, path.join(clone, 'node_modules', '.bin', 'meal-export'));
  symlinkSync(path.join(PROJECT_ROOT, 'docs'), path.join(clone, 'docs'));
  return clone;
}

describe('docs/host-api.md, run', () => {
  before(() => {
    execFileSync('mkdir', ['-p', path.join(work.dir, 'data', 'tls')]);
    writeFileSync(
      path.join(work.dir, 'data', 'tls', 'cert.pem'),
      readFileSync(path.join(server.dir, 'tls', 'cert.pem')),
    );
  });

  test(
    "the page's blocks, pasted in order at the root of a clone, with only the page's exports",
    { skip: missing('curl') || missing('python3') },
    async () => {
      const clone = cloneFolder();
      // The page's ports, on free ones: the same commands, on a machine where tests run side by side.
      const ports = new Map<string, string>();
      for (const port of ['8443', '8444', '8445']) ports.set(port, String(await freePort()));
      const onFreePorts = (script: string) =>
        script.replace(/\b(8443|8444|8445)\b/g, (port) => ports.get(port) ?? port);
      const [run, ...rest] = pageBlocks();
      assert.equal(run?.marker, 'host-run', 'the page starts the server first');
      assert.deepEqual(
        rest.map((block) => block.marker),
        ['host-token', 'host-curl', 'host-import', 'host-history-import', 'host-python'],
      );
      // The first block in a terminal of its own.
      const serving = spawn('bash', ['-c', `exec ${onFreePorts(run.script.trim())}`], {
        cwd: clone,
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
        // npx and the server it starts, as one group: the terminal's Ctrl-C reaches both.
        detached: true,
      });
      let logs = '';
      serving.stderr.on('data', (chunk: Buffer) => (logs += chunk.toString()));
      try {
        await waitFor(
          () => `the host API in:\n${logs}`,
          () => logs.includes('"msg":"host API listening"'),
          30_000,
        );
        // The others in one shell, one after the other, as pasted: each block's output after a mark.
        const script = rest
          .map((block) => `printf '\\n>>> ${block.marker}\\n'\n${onFreePorts(block.script)}`)
          .join('\n');
        const output = execFileSync('bash', ['-euo', 'pipefail', '-c', script], {
          cwd: clone,
          encoding: 'utf8',
          env: cleanEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const outputs = new Map(
          output
            .split(/^>>> /m)
            .filter((part) => part !== '')
            .map((part) => [part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1)]),
        );
        assert.match(outputs.get('host-token') ?? '', /^svc_[0-9A-Za-z]+ +mxs_\S+ +active .* backend$/m);
        assert.deepEqual(
          jsonValues(outputs.get('host-curl') ?? '').map((answer) => answer.outcome ?? answer.sourceVersion),
          ['created', 7, 'deleted'],
        );
        assert.deepEqual(jsonValues(outputs.get('host-import') ?? ''), [
          { imported: 2, created: 2, updated: 0, unchanged: 0, stale: 0 },
        ]);
        assert.deepEqual(jsonValues(outputs.get('host-history-import') ?? ''), [
          { imported: 2, created: 2, updated: 0, unchanged: 0, stale: 0, batches: 1 },
        ]);
        const [saved, retried, deleted, got] = jsonValues(outputs.get('host-python') ?? '');
        assert.equal(saved?.outcome, 'created');
        assert.equal(retried?.outcome, 'unchanged');
        assert.deepEqual(deleted, { id: 'm_1002', outcome: 'deleted' });
        assert.deepEqual([got?.deleted, got?.sourceVersion], [true, 8]);
      } finally {
        const exited = once(serving, 'close');
        if (serving.pid !== undefined) process.kill(-serving.pid, 'SIGTERM');
        await exited;
      }
    },
  );

  test(
    'a stale save through the Python client answers stale; an error exits 1 with the JSON body',
    { skip: missing('python3') },
    () => {
      const client = path.join(PROJECT_ROOT, 'docs', 'examples', 'host_client.py');
      const env = {
        MEAL_EXPORT_HOST_API: server.hostUrl,
        MEAL_EXPORT_SERVICE_TOKEN: server.token,
        MEAL_EXPORT_CA: path.join(work.dir, 'data', 'tls', 'cert.pem'),
      };
      const record = JSON.stringify({ type: 'snack', date: '2026-11-25T16:00:00Z' });
      // python3 itself, no shell between: its stderr is the client's alone.
      const run = (...args: string[]) =>
        execFileSync('python3', [client, ...args], { cwd: work.dir, encoding: 'utf8', env: cleanEnv(env) });
      assert.equal(jsonValues(run('save', 'py_u', 'm', record, '5'))[0]?.outcome, 'created');
      assert.equal(jsonValues(run('save', 'py_u', 'm', record, '4'))[0]?.outcome, 'stale');
      const failed = (() => {
        try {
          run('save', 'py_u', 'm', '{"type":"tea","date":"2026-11-25T16:00:00Z"}');
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
