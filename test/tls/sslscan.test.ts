import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createServer, type Server } from 'node:tls';
import { type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';

// The TLS the public listener offers, as a real scanner sees it
// (docs/api.md#the-rest-of-the-transport: TLS 1.2 or newer). Debian's sslscan, which .ci/run
// installs; the test skips, saying so, without it.
const SSLSCAN = 'sslscan';
const installed = spawnSync(SSLSCAN, ['--version']).status === 0;
const SKIP = installed ? false : 'sslscan is not installed here (apt-get install sslscan; .ci/run installs it)';

let server: ServedApp;
/** A deliberately weak TLS server (TLS 1.0, every cipher): proof that the checks below can fail. */
let weak: Server;

before(async () => {
  if (!installed) return;
  server = await startInProcessServer();
  const tlsDir = path.join(server.dir, 'tls');
  weak = createServer({
    cert: readFileSync(path.join(tlsDir, 'cert.pem')),
    key: readFileSync(path.join(tlsDir, 'key.pem')),
    minVersion: 'TLSv1',
    ciphers: 'ALL:eNULL:@SECLEVEL=0',
  });
  weak.on('secureConnection', (socket) => socket.end());
  weak.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => weak.listen(0, '127.0.0.1', resolve));
});

after(async () => {
  if (!installed) return;
  weak.close();
  await server.stop();
});

function sslscan(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(SSLSCAN, ['--no-colour', '--xml=-', `127.0.0.1:${port}`], { timeout: 120_000 }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error),
    );
  });
}

/** The attributes of every `<tag …/>` element of sslscan's XML report. */
function elements(xml: string, tag: string): Record<string, string>[] {
  return [...xml.matchAll(new RegExp(`<${tag} ([^>]*?)/?>`, 'g'))].map((match) =>
    Object.fromEntries([...(match[1] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map((attr) => [attr[1], attr[2]])),
  );
}

// NULL, EXPORT, RC4, DES and 3DES (DES-CBC3), anonymous key exchange (ADH, AECDH, aNULL), MD5.
const WEAK_CIPHER_RE = /NULL|EXP|RC4|DES-|DES_|3DES|CBC3|ADH|AECDH|ANON|MD5/i;

/** What is wrong with a scanned TLS configuration; empty when nothing is. */
function tlsProblems(xml: string): string[] {
  const problems: string[] = [];
  const protocols = elements(xml, 'protocol');
  assert.ok(protocols.length >= 6, `sslscan reported its protocols:\n${xml}`);
  for (const { type, version, enabled } of protocols) {
    const name = `${type === 'ssl' ? 'SSL' : 'TLS'} ${version}`;
    const wanted = type === 'tls' && (version === '1.2' || version === '1.3');
    if ((enabled === '1') !== wanted) problems.push(`${name} ${enabled === '1' ? 'accepted' : 'refused'}`);
  }
  const ciphers = elements(xml, 'cipher');
  assert.ok(ciphers.length > 0, `sslscan reported ciphers:\n${xml}`);
  for (const { sslversion, bits, cipher = '', strength = '' } of ciphers) {
    const where = `${sslversion} ${cipher} (${bits} bits, ${strength})`;
    if (Number(bits) < 128) problems.push(`under 128 bits: ${where}`);
    if (WEAK_CIPHER_RE.test(cipher)) problems.push(`weak cipher: ${where}`);
    if (!['strong', 'acceptable'].includes(strength)) problems.push(`rated ${strength}: ${where}`);
  }
  for (const { sslversion, bits, name } of elements(xml, 'group')) {
    if (Number(bits) < 128) problems.push(`key exchange group under 128 bits: ${sslversion} ${name} (${bits} bits)`);
  }
  for (const { vulnerable, sslversion } of elements(xml, 'heartbleed')) {
    if (vulnerable !== '0') problems.push(`heartbleed on ${sslversion}`);
  }
  for (const { supported, secure } of elements(xml, 'renegotiation')) {
    if (supported === '1' && secure !== '1') problems.push('insecure renegotiation');
  }
  return problems;
}

test(
  'sslscan finds only TLS 1.2 and 1.3, no cipher under 128 bits and no NULL, EXPORT, RC4, DES, 3DES or anonymous one',
  { skip: SKIP },
  async () => {
    assert.deepEqual(tlsProblems(await sslscan(server.port)), []);
  },
);

test('the same checks catch a weak server (TLS 1.0, NULL and anonymous ciphers)', { skip: SKIP }, async () => {
  const problems = tlsProblems(await sslscan((weak.address() as AddressInfo).port));
  for (const expected of ['TLS 1.0 accepted', 'TLS 1.1 accepted', 'weak cipher:', 'under 128 bits:']) {
    assert.ok(
      problems.some((problem) => problem.startsWith(expected)),
      `${expected} in ${problems.join('\n')}`,
    );
  }
});
