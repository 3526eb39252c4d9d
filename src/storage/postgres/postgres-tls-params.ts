import { readFileSync } from 'node:fs';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import { cannotOpen } from './postgres-errors.js';

/** libpq's parameters naming files, which postgres.js would send to the server as settings. */
export const TLS_FILE_PARAMS = ['sslrootcert', 'sslcert', 'sslkey'] as const;

type TlsFileParam = (typeof TLS_FILE_PARAMS)[number];

const SSL_MODES: ReadonlySet<string> = new Set(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']);

function readPem(url: string, param: TlsFileParam, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw cannotOpen(url, `cannot read its ${param}: ${reason}`);
  }
}

/**
 * The TLS of a URL's libpq parameters, where postgres.js reads only `sslmode` and
 * `sslrootcert=system` (docs/configuration.md#postgresql-over-tls): a root certificate file
 * (`sslrootcert`) and a client certificate and key (`sslcert`, `sslkey`), as a managed
 * PostgreSQL with a CA of its own asks for. As in libpq, a root certificate file makes every
 * mode but `disable` check the server's chain (`require` then acts as `verify-ca`), and
 * `verify-full` also checks that the certificate names `serverName`, an IP address included.
 * Undefined when the URL names no file: postgres.js reads its `sslmode` itself.
 */
export function tlsOfParams(
  url: string,
  query: URLSearchParams,
  serverName: string | undefined,
): ConnectionOptions | false | undefined {
  // sslrootcert=system: the system's roots, and verify-full, as in libpq and postgres.js.
  const systemRoots = query.get('sslrootcert') === 'system';
  const rootFile = systemRoots ? null : query.get('sslrootcert');
  const certFile = query.get('sslcert');
  const keyFile = query.get('sslkey');
  if (rootFile === null && certFile === null && keyFile === null) return undefined;
  const mode = systemRoots ? 'verify-full' : (query.get('sslmode') ?? 'prefer');
  if (!SSL_MODES.has(mode)) throw cannotOpen(url, `its sslmode "${mode}" is none of ${[...SSL_MODES].join(', ')}`);
  if (mode === 'disable') return false;
  if ((certFile === null) !== (keyFile === null))
    throw cannotOpen(url, 'sslcert and sslkey name a client certificate and its key: give both or neither');
  const verifyName = mode === 'verify-full';
  return {
    ...(rootFile === null ? {} : { ca: readPem(url, 'sslrootcert', rootFile) }),
    ...(certFile === null ? {} : { cert: readPem(url, 'sslcert', certFile) }),
    ...(keyFile === null ? {} : { key: readPem(url, 'sslkey', keyFile) }),
    rejectUnauthorized: rootFile !== null || mode === 'verify-ca' || verifyName,
    // postgres.js names no server for an IP address, which Node's own check then takes for
    // "localhost": the URL's host is checked instead, a SAN of type IP included.
    checkServerIdentity: (name, certificate) =>
      verifyName ? checkServerIdentity(serverName ?? name, certificate) : undefined,
  };
}
