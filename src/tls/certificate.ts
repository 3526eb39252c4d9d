/**
 * The server's TLS certificate (docs/operations.md#tls): the operator's own pair when given,
 * else a self-signed one kept in `<dataDir>/tls/`, created on first start and reused after.
 */
import { createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from '../errors.js';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  /** SHA-256 of the certificate DER, uppercase hex pairs joined by colons: what the server logs. */
  readonly fingerprint256: string;
  readonly source: 'provided' | 'created' | 'reused';
  readonly certPath: string;
}

export interface LoadTlsOptions {
  readonly dataDir: string;
  /** The address the server listens on; the self-signed certificate names it too. */
  readonly host: string;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

interface SubjectAltName {
  readonly type: 'dns' | 'ip';
  readonly value: string;
}

const DAY_MS = 86_400_000;
const COMMON_NAME = 'meal-export';
// Apple platforms refuse TLS server certificates valid for longer than 825 days, even self-signed ones.
const VALIDITY_MS = 825 * DAY_MS;
const RENEW_WITHIN_MS = 30 * DAY_MS;
// Backdated so that a client whose clock runs a little behind ours still accepts a fresh certificate.
const BACKDATE_MS = 60 * 60 * 1000;
// Creating a P-256 certificate takes milliseconds: a lock older than this was left by a crashed process.
const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 15_000;
const LOCK_POLL_MS = 20;
const ALWAYS_NAMED: readonly SubjectAltName[] = [
  { type: 'dns', value: 'localhost' },
  { type: 'ip', value: '127.0.0.1' },
  { type: 'ip', value: '::1' },
];

export async function loadTlsMaterial(options: LoadTlsOptions): Promise<TlsMaterial> {
  const { certFile, keyFile } = options;
  if (certFile !== undefined && keyFile !== undefined) return loadProvided(certFile, keyFile);
  if (certFile !== undefined || keyFile !== undefined) {
    const [given, missing] = certFile === undefined ? ['key', 'certificate'] : ['certificate', 'key'];
    throw new CliError(
      `A TLS ${given} was given without its ${missing}: ` +
        'give both --tls-cert and --tls-key (MEAL_EXPORT_TLS_CERT, MEAL_EXPORT_TLS_KEY), or neither for a self-signed one.',
      { usage: true },
    );
  }
  return loadSelfSigned(options.dataDir, subjectAltNamesFor(options.host));
}

async function loadProvided(certFile: string, keyFile: string): Promise<TlsMaterial> {
  const cert = await readText(certFile, 'certificate');
  const key = await readText(keyFile, 'key');
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) {
    throw new CliError(`TLS certificate file ${certFile} is not a PEM certificate (no "-----BEGIN CERTIFICATE-----").`);
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) {
    throw new CliError(`TLS key file ${keyFile} is not a PEM private key (no "-----BEGIN ... PRIVATE KEY-----").`);
  }
  let x509: X509Certificate;
  try {
    // A chain file parses as its first certificate, the server's own; the rest is served as given.
    x509 = new X509Certificate(cert);
  } catch (error) {
    throw new CliError(`TLS certificate file ${certFile} cannot be parsed: ${messageOf(error)}`, { cause: error });
  }
  let matches: boolean;
  try {
    matches = x509.checkPrivateKey(createPrivateKey(key));
  } catch (error) {
    throw new CliError(
      `TLS key file ${keyFile} cannot be parsed (encrypted keys are not supported): ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
  if (!matches) throw new CliError(`TLS key file ${keyFile} does not match the certificate in ${certFile}.`);
  return { cert, key, fingerprint256: x509.fingerprint256, source: 'provided', certPath: path.resolve(certFile) };
}

async function readText(file: string, what: 'certificate' | 'key'): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read TLS ${what} file ${file}: ${messageOf(error)}`, { cause: error });
  }
}

/** localhost, 127.0.0.1 and ::1 always; the listening host too unless it is a wildcard or one of those. */
function subjectAltNamesFor(host: string): SubjectAltName[] {
  const names = [...ALWAYS_NAMED];
  // A bracketed IPv6 literal as in URLs; a zone (fe80::1%eth0) cannot appear in a certificate.
  const bare = host
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '')
    .toLowerCase();
  if (bare === '') return names;
  const extra: SubjectAltName =
    isIP(bare) === 0 ? { type: 'dns', value: bare } : { type: 'ip', value: canonicalIp(bare) };
  const unspecified = extra.type === 'ip' && (extra.value === '0.0.0.0' || extra.value === '::');
  if (!unspecified && !names.some((name) => name.type === extra.type && name.value === extra.value)) names.push(extra);
  return names;
}

/** The WHATWG URL parser writes every spelling of an address one way (0:0:0:0:0:0:0:1 is ::1). */
function canonicalIp(ip: string): string {
  const hostname = new URL(`http://${isIP(ip) === 6 ? `[${ip}]` : ip}/`).hostname;
  return hostname.replace(/^\[(.*)\]$/, '$1');
}

async function loadSelfSigned(dataDir: string, names: readonly SubjectAltName[]): Promise<TlsMaterial> {
  const tlsDir = path.resolve(dataDir, 'tls');
  const certPath = path.join(tlsDir, 'cert.pem');
  const keyPath = path.join(tlsDir, 'key.pem');

  // Fast path without the lock: every start after the first.
  const existing = await readReusable(certPath, keyPath, names);
  if (existing !== undefined) return existing;

  try {
    await mkdir(dataDir, { recursive: true });
    await mkdir(tlsDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new CliError(`Cannot create the TLS folder ${tlsDir}: ${messageOf(error)}`, { cause: error });
  }
  // The lock keeps cert.pem and key.pem a pair when two servers start at once: each file is
  // replaced atomically, but not the two together, so a reader that saw a mismatched pair
  // above looks again here, once the writer is done.
  return withLock(path.join(tlsDir, '.lock'), async () => {
    const again = await readReusable(certPath, keyPath, names);
    if (again !== undefined) return again;
    const created = await createSelfSigned(names);
    try {
      await writeFileAtomic(keyPath, created.key, 0o600);
      await writeFileAtomic(certPath, created.cert, 0o644);
    } catch (error) {
      throw new CliError(`Cannot write the TLS certificate to ${tlsDir}: ${messageOf(error)}`, { cause: error });
    }
    const x509 = new X509Certificate(created.cert);
    return { ...created, fingerprint256: x509.fingerprint256, source: 'created', certPath };
  });
}

/** The stored pair if it parses, matches, names every host and stays valid 30 more days; else undefined. */
async function readReusable(
  certPath: string,
  keyPath: string,
  names: readonly SubjectAltName[],
): Promise<TlsMaterial | undefined> {
  let cert: string;
  let key: string;
  try {
    cert = await readFile(certPath, 'utf8');
    key = await readFile(keyPath, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw new CliError(`Cannot read the TLS certificate in ${path.dirname(certPath)}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
    if (!x509.checkPrivateKey(createPrivateKey(key))) return undefined;
  } catch {
    // A damaged file is replaced, like an expired one: it is ours, and nobody else can use it.
    return undefined;
  }
  const now = Date.now();
  const validFrom = Date.parse(x509.validFrom);
  const validTo = Date.parse(x509.validTo);
  if (!(validFrom <= now && validTo - now > RENEW_WITHIN_MS)) return undefined;
  const covered = names.every((name) =>
    name.type === 'ip' ? x509.checkIP(name.value) !== undefined : x509.checkHost(name.value) !== undefined,
  );
  if (!covered) return undefined;
  return { cert, key, fingerprint256: x509.fingerprint256, source: 'reused', certPath };
}

async function createSelfSigned(names: readonly SubjectAltName[]): Promise<{ cert: string; key: string }> {
  const notBefore = Date.now() - BACKDATE_MS;
  // P-256 rather than RSA: generated in milliseconds, and a cheaper signature in every handshake.
  // A name of its own (the subject is how a CA bundle finds a certificate): two instances'
  // self-signed certificates can then be trusted side by side in one bundle.
  const commonName = `${COMMON_NAME} ${randomUUID().slice(0, 8)}`;
  // Loaded only to make a certificate: a server whose certificate exists starts without it.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(notBefore),
    notAfterDate: new Date(notBefore + VALIDITY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      // ECDSA keys sign; keyEncipherment (selfsigned's default) is for RSA key transport.
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: names.map((name) =>
          name.type === 'ip' ? ({ type: 7, ip: name.value } as const) : ({ type: 2, value: name.value } as const),
        ),
      },
    ],
  });
  // PEM files end with a newline, so that `cat a.pem b.pem > bundle.pem` is two certificates.
  return { cert: withFinalNewline(pems.cert), key: withFinalNewline(pems.private) };
}

function withFinalNewline(pem: string): string {
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

/** Write beside the target, then rename over it: a reader sees the old file or the new one, never half. */
async function writeFileAtomic(target: string, data: string, mode: number): Promise<void> {
  const temp = `${target}.${process.pid}.${randomUUID()}.tmp`;
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

async function withLock<T>(lockPath: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`, 'utf8');
      await handle.close();
      break;
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) {
        throw new CliError(`Cannot create ${lockPath}: ${messageOf(error)}`, { cause: error });
      }
    }
    if (Date.now() > deadline) {
      throw new CliError(`Timed out waiting for ${lockPath}: remove it if no other meal-export is starting.`);
    }
    await removeIfStale(lockPath);
    await sleep(LOCK_POLL_MS);
  }
  try {
    return await work();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function removeIfStale(lockPath: string): Promise<void> {
  try {
    const { mtimeMs } = await stat(lockPath);
    if (Date.now() - mtimeMs > LOCK_STALE_MS) await rm(lockPath, { force: true });
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
