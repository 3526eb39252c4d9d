import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { CliError } from '../../src/errors.js';
import { loadTlsMaterial } from '../../src/tls/certificate.js';

const DAY_MS = 86_400_000;

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'meal-export-tls-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A certificate and key made outside the module under test, as an operator would bring them. */
async function makePair(
  options: { daysValid?: number; names?: string[] } = {},
): Promise<{ cert: string; key: string }> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'operator.example' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + (options.daysValid ?? 90) * DAY_MS),
    extensions: [
      {
        name: 'subjectAltName',
        altNames: (options.names ?? ['operator.example']).map((value) => ({ type: 2, value }) as const),
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function writePair(pair: { cert: string; key: string }): Promise<{ certFile: string; keyFile: string }> {
  const certFile = path.join(dir, 'server.crt');
  const keyFile = path.join(dir, 'server.key');
  await writeFile(certFile, pair.cert);
  await writeFile(keyFile, pair.key);
  return { certFile, keyFile };
}

describe('a self-signed certificate in the data folder', () => {
  it('is created on first start, naming localhost, 127.0.0.1, ::1 and the host', async () => {
    const dataDir = path.join(dir, 'data');
    const material = await loadTlsMaterial({ dataDir, host: 'api.example.test' });

    assert.equal(material.source, 'created');
    assert.equal(material.certPath, path.join(dataDir, 'tls', 'cert.pem'));
    assert.equal(await readFile(material.certPath, 'utf8'), material.cert);
    assert.equal(await readFile(path.join(dataDir, 'tls', 'key.pem'), 'utf8'), material.key);

    const x509 = new X509Certificate(material.cert);
    assert.equal(
      x509.subjectAltName,
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:api.example.test',
    );
    assert.match(x509.subject, /^CN=meal-export [0-9a-f]{8}$/);
    assert.equal(x509.publicKey.asymmetricKeyType, 'ec');
    assert.equal(x509.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.equal(material.fingerprint256, x509.fingerprint256);
    assert.match(material.fingerprint256, /^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/);
    const days = (Date.parse(x509.validTo) - Date.parse(x509.validFrom)) / DAY_MS;
    assert.equal(days, 825);
    assert.ok(Date.parse(x509.validFrom) <= Date.now());

    if (process.platform !== 'win32') {
      assert.equal((await stat(path.join(dataDir, 'tls', 'key.pem'))).mode & 0o777, 0o600);
    }
    // No temporary file or lock is left behind.
    assert.deepEqual((await readdir(path.join(dataDir, 'tls'))).sort(), ['cert.pem', 'key.pem']);
  });

  it('names an IP host as an address, and leaves out wildcards and names already listed', async () => {
    const cases: Array<[string, string]> = [
      ['192.0.2.10', 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:192.0.2.10'],
      [
        '[2001:db8::7]',
        'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:2001:DB8:0:0:0:0:0:7',
      ],
      ['0.0.0.0', 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1'],
      ['::', 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1'],
      ['0:0:0:0:0:0:0:1', 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1'],
      ['LocalHost', 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1'],
    ];
    for (const [index, [host, expected]] of cases.entries()) {
      const material = await loadTlsMaterial({ dataDir: path.join(dir, String(index)), host });
      assert.equal(new X509Certificate(material.cert).subjectAltName, expected, host);
    }
  });

  it('ends its PEM files with a newline and has a subject of its own, so that two go in one CA bundle', async () => {
    const a = await loadTlsMaterial({ dataDir: path.join(dir, 'a'), host: '127.0.0.1' });
    const b = await loadTlsMaterial({ dataDir: path.join(dir, 'b'), host: '127.0.0.1' });
    for (const file of ['a/tls/cert.pem', 'a/tls/key.pem']) {
      assert.ok((await readFile(path.join(dir, file), 'utf8')).endsWith('-----\n'), file);
    }
    assert.notEqual(new X509Certificate(a.cert).subject, new X509Certificate(b.cert).subject);
    // One bundle of both: a client trusting it reaches each server.
    const bundle = `${await readFile(path.join(dir, 'a/tls/cert.pem'), 'utf8')}${await readFile(path.join(dir, 'b/tls/cert.pem'), 'utf8')}`;
    for (const material of [a, b]) {
      const server = createServer({ cert: material.cert, key: material.key }, (_req, res) => res.end('ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        request({ host: '127.0.0.1', port, ca: bundle }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });
      server.close();
      assert.equal(body, 'ok');
    }
  });

  it('is reused on the next start, with the same fingerprint', async () => {
    const first = await loadTlsMaterial({ dataDir: dir, host: 'api.example.test' });
    const second = await loadTlsMaterial({ dataDir: dir, host: 'api.example.test' });
    assert.equal(second.source, 'reused');
    assert.equal(second.fingerprint256, first.fingerprint256);
    assert.equal(second.cert, first.cert);
    assert.equal(second.key, first.key);
  });

  it('is reused when the new host is one it already names', async () => {
    const first = await loadTlsMaterial({ dataDir: dir, host: 'api.example.test' });
    const second = await loadTlsMaterial({ dataDir: dir, host: '127.0.0.1' });
    assert.equal(second.source, 'reused');
    assert.equal(second.fingerprint256, first.fingerprint256);
  });

  it('is created anew when the host changes to one it does not name', async () => {
    const first = await loadTlsMaterial({ dataDir: dir, host: 'api.example.test' });
    const second = await loadTlsMaterial({ dataDir: dir, host: '10.1.2.3' });
    assert.equal(second.source, 'created');
    assert.notEqual(second.fingerprint256, first.fingerprint256);
    assert.equal(
      new X509Certificate(second.cert).subjectAltName,
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.1.2.3',
    );
    assert.equal(await readFile(second.certPath, 'utf8'), second.cert);
  });

  it('is created anew when the stored one expires within 30 days', async () => {
    await mkdir(path.join(dir, 'tls'));
    const expiring = await makePair({ daysValid: 29, names: ['localhost'] });
    await writeFile(path.join(dir, 'tls', 'cert.pem'), expiring.cert);
    await writeFile(path.join(dir, 'tls', 'key.pem'), expiring.key);
    const material = await loadTlsMaterial({ dataDir: dir, host: 'localhost' });
    assert.equal(material.source, 'created');
    assert.notEqual(material.cert, expiring.cert);
  });

  it('is created anew when the stored pair is damaged or mismatched', async () => {
    const first = await loadTlsMaterial({ dataDir: dir, host: 'localhost' });
    await writeFile(path.join(dir, 'tls', 'key.pem'), (await makePair()).key);
    const second = await loadTlsMaterial({ dataDir: dir, host: 'localhost' });
    assert.equal(second.source, 'created');
    assert.notEqual(second.fingerprint256, first.fingerprint256);

    await writeFile(path.join(dir, 'tls', 'cert.pem'), second.cert.slice(0, 100));
    const third = await loadTlsMaterial({ dataDir: dir, host: 'localhost' });
    assert.equal(third.source, 'created');
  });

  it('is created once when two servers start at the same time', async () => {
    const results = await Promise.all([
      loadTlsMaterial({ dataDir: dir, host: 'api.example.test' }),
      loadTlsMaterial({ dataDir: dir, host: 'api.example.test' }),
      loadTlsMaterial({ dataDir: dir, host: 'api.example.test' }),
    ]);
    assert.deepEqual(results.map((material) => material.source).sort(), ['created', 'reused', 'reused']);
    assert.equal(new Set(results.map((material) => material.fingerprint256)).size, 1);
    assert.equal(await readFile(path.join(dir, 'tls', 'cert.pem'), 'utf8'), results[0]!.cert);
  });
});

describe('a certificate and key given by the operator', () => {
  it('are served as they are', async () => {
    const pair = await makePair();
    const files = await writePair(pair);
    const material = await loadTlsMaterial({ dataDir: path.join(dir, 'data'), host: 'localhost', ...files });
    assert.equal(material.source, 'provided');
    assert.equal(material.cert, pair.cert);
    assert.equal(material.key, pair.key);
    assert.equal(material.certPath, files.certFile);
    assert.equal(material.fingerprint256, new X509Certificate(pair.cert).fingerprint256);
    // Nothing is created in the data folder.
    await assert.rejects(stat(path.join(dir, 'data')), { code: 'ENOENT' });
  });

  it('are refused when the key belongs to another certificate', async () => {
    const files = await writePair({ cert: (await makePair()).cert, key: (await makePair()).key });
    await assert.rejects(loadTlsMaterial({ dataDir: dir, host: 'localhost', ...files }), (error: unknown) => {
      assert.ok(error instanceof CliError);
      assert.equal(error.message, `TLS key file ${files.keyFile} does not match the certificate in ${files.certFile}.`);
      return true;
    });
  });

  it('are refused when only one of the two is given', async () => {
    const files = await writePair(await makePair());
    await assert.rejects(loadTlsMaterial({ dataDir: dir, host: 'localhost', certFile: files.certFile }), (error) => {
      assert.ok(error instanceof CliError);
      assert.match(error.message, /certificate was given without its key.*--tls-cert and --tls-key/);
      return true;
    });
    await assert.rejects(loadTlsMaterial({ dataDir: dir, host: 'localhost', keyFile: files.keyFile }), (error) => {
      assert.ok(error instanceof CliError);
      assert.match(error.message, /key was given without its certificate/);
      return true;
    });
  });

  it('are refused when a file is missing', async () => {
    const files = await writePair(await makePair());
    const certFile = path.join(dir, 'missing.crt');
    await assert.rejects(loadTlsMaterial({ dataDir: dir, host: 'localhost', certFile, keyFile: files.keyFile }), {
      name: 'CliError',
      message: new RegExp(`^Cannot read TLS certificate file ${escapeRegExp(certFile)}: ENOENT`),
    });
  });

  it('are refused when a file is not PEM', async () => {
    const files = await writePair(await makePair());
    await writeFile(files.keyFile, 'not a key');
    await assert.rejects(loadTlsMaterial({ dataDir: dir, host: 'localhost', ...files }), {
      name: 'CliError',
      message: `TLS key file ${files.keyFile} is not a PEM private key (no "-----BEGIN ... PRIVATE KEY-----").`,
    });
    await writeFile(files.certFile, Buffer.from(new X509Certificate((await makePair()).cert).raw));
    await assert.rejects(loadTlsMaterial({ dataDir: dir, host: 'localhost', ...files }), {
      name: 'CliError',
      message: `TLS certificate file ${files.certFile} is not a PEM certificate (no "-----BEGIN CERTIFICATE-----").`,
    });
  });
});

describe('the created certificate over a real TLS connection', () => {
  it('completes a TLS 1.2+ handshake for localhost with a client that trusts it, showing the logged fingerprint', async () => {
    const material = await loadTlsMaterial({ dataDir: dir, host: 'localhost' });
    const server = createServer({ cert: material.cert, key: material.key, minVersion: 'TLSv1.2' }, (_req, res) => {
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const seen = await new Promise<{ protocol: string | null; fingerprint256: string; authorized: boolean }>(
        (resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              servername: 'localhost',
              port,
              path: '/',
              ca: material.cert,
              minVersion: 'TLSv1.2',
              agent: false,
            },
            (res) => {
              const socket = res.socket as TLSSocket;
              resolve({
                protocol: socket.getProtocol(),
                fingerprint256: socket.getPeerCertificate().fingerprint256,
                authorized: socket.authorized,
              });
              res.resume();
            },
          );
          req.on('error', reject);
          req.end();
        },
      );
      assert.ok(seen.authorized);
      assert.ok(seen.protocol === 'TLSv1.2' || seen.protocol === 'TLSv1.3', String(seen.protocol));
      assert.equal(seen.fingerprint256, material.fingerprint256);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
