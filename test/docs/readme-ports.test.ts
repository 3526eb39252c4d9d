import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../support/project.js';

const README = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
const DEFAULT_PORT = '8443';

/** The ports each server the README starts listens on (`npm start` and `… serve …` lines of its code blocks). */
function serversOf(readme: string): { line: string; ports: string[] }[] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const lines = blocks.flatMap((block) => block.split('\n'));
  return lines
    .filter((line) => /\bnpm start\b|\bmeal-export serve\b/.test(line.replace(/#.*$/, '')))
    .map((line) => {
      const command = line.replace(/#.*$/, '');
      const flag = (name: string) => new RegExp(`--${name}[ =](\\d+)`).exec(command)?.[1];
      const ports = [flag('port') ?? DEFAULT_PORT, flag('admin-port'), flag('app-port')];
      return { line: line.trim(), ports: ports.filter((p): p is string => p !== undefined) };
    });
}

test("the README's sections start their servers on ports that do not collide (issue 17, item 4)", () => {
  const servers = serversOf(README);
  assert.ok(servers.length >= 4, `servers found: ${servers.map((s) => s.line).join('\n')}`);
  const seen = new Map<string, string>();
  for (const { line, ports } of servers) {
    for (const port of ports) {
      assert.ok(!seen.has(port), `port ${port} of\n  ${line}\nis already taken by\n  ${seen.get(port)}`);
      seen.set(port, line);
    }
  }
});
