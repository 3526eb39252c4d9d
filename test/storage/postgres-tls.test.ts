import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { connectPostgres } from '../../src/storage/postgres/postgres-connect.js';
import { makeTempDir } from '../support/project.js';
import { type PrivatePostgres, privatePostgresSkipReason, startPrivatePostgres } from '../support/private-postgres.js';
import { assertServesQuietly } from '../support/store-fixtures.js';
import { makeCertificate } from '../webhooks/receiver.js';

// A store on a PostgreSQL that speaks TLS only and knows its clients by certificate, as a
// managed PostgreSQL with a CA of its own does (docs/configuration.md#postgresql-over-tls):
// the URL's libpq parameters name the files, which postgres.js alone would send to the server
// as settings. The cluster is the test's own: it listens on 127.0.0.1 and 127.0.0.2, and its
// certificate names 127.0.0.1 alone.
const skip = privatePostgresSkipReason();

describe('PostgreSQL over TLS, with the libpq parameters naming its files', { skip: skip ?? false }, () => {
  let cluster: PrivatePostgres;
  let files: ReturnType<typeof makeTempDir>;
  let port: number;
  const file = (name: string) => path.join(files.dir, name);
  /** The cluster's `postgres` database at `host`, with these query parameters. */
  const urlOf = (host: string, params: Record<string, string>) =>
    `postgres://postgres@${host}:${port}/postgres?${new URLSearchParams(params).toString()}`;
  const trusted = () => ({ sslrootcert: file('server.pem'), sslcert: file('client.pem'), sslkey: file('client.key') });

  before(async () => {
    const server = await makeCertificate([{ type: 'ip', value: '127.0.0.1' }], 'meal-export test database');
    const client = await makeCertificate([{ type: 'dns', value: 'client' }], 'postgres');
    const stranger = await makeCertificate([{ type: 'ip', value: '127.0.0.1' }], 'someone else');
    files = makeTempDir('pg-tls');
    writeFileSync(file('server.pem'), server.cert);
    writeFileSync(file('stranger.pem'), stranger.cert);
    writeFileSync(file('client.pem'), client.cert);
    writeFileSync(file('client.key'), client.key, { mode: 0o600 });
    cluster = await startPrivatePostgres({
      listen: '127.0.0.1,127.0.0.2',
      settings: [
        'ssl = on',
        "ssl_cert_file = 'server.pem'",
        "ssl_key_file = 'server.key'",
        "ssl_ca_file = 'client-ca.pem'",
      ],
      files: { 'server.pem': server.cert, 'server.key': server.key, 'client-ca.pem': client.cert },
      hba: ['local all all trust', 'hostssl all all 127.0.0.0/8 cert'],
    });
    port = Number(new URL(cluster.url()).port);
  });

  after(async () => {
    await cluster?.close();
    files?.remove();
  });

  const sessionOf = async (url: string) => {
    const sql = connectPostgres(url, { max: 1, connect_timeout: 3, onnotice: () => undefined });
    try {
      const [row] = await sql<{ ssl: boolean; client: string | null }[]>`
        SELECT ssl, client_dn AS client FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
      return row;
    } finally {
      await sql.end({ timeout: 1 });
    }
  };

  test('verify-full with a root file and a client certificate: TLS, the server checked by its IP address, the client known by its certificate', async () => {
    assert.deepEqual(await sessionOf(urlOf('127.0.0.1', { sslmode: 'verify-full', ...trusted() })), {
      ssl: true,
      client: '/CN=postgres',
    });
  });

  test('a serving store opens there, its LISTEN over TLS too (nothing to say), and saves and serves', async () => {
    await assertServesQuietly(urlOf('127.0.0.1', { sslmode: 'verify-full', ...trusted() }));
  });

  test('verify-full refuses a name the certificate does not give; verify-ca checks the chain alone and connects', async () => {
    await assert.rejects(
      sessionOf(urlOf('127.0.0.2', { sslmode: 'verify-full', ...trusted() })),
      /127\.0\.0\.2.*(not in the cert|altnames)/i,
    );
    assert.equal((await sessionOf(urlOf('127.0.0.2', { sslmode: 'verify-ca', ...trusted() })))?.ssl, true);
  });

  test('a server whose certificate the root file did not sign is refused, with require too (a root file makes it verify-ca)', async () => {
    for (const sslmode of ['verify-full', 'verify-ca', 'require']) {
      await assert.rejects(
        sessionOf(urlOf('127.0.0.1', { sslmode, ...trusted(), sslrootcert: file('stranger.pem') })),
        /self[- ]signed|unable to verify|certificate/i,
        sslmode,
      );
    }
  });

  test('the store opening refuses as unavailable: a chain it cannot check, a file it cannot read, a certificate without its key, a mode libpq does not know', async () => {
    const refusals: [Record<string, string>, RegExp][] = [
      [{ sslmode: 'verify-full', ...trusted(), sslrootcert: file('stranger.pem') }, /certificate/i],
      [{ sslmode: 'verify-full', ...trusted(), sslrootcert: file('missing.pem') }, /cannot read its sslrootcert/],
      [{ sslmode: 'verify-full', sslrootcert: file('server.pem'), sslcert: file('client.pem') }, /sslcert and sslkey/],
      [{ sslmode: 'verify_full', ...trusted() }, /sslmode "verify_full" is none of disable, allow/],
    ];
    for (const [params, reason] of refusals) {
      await assert.rejects(openStorage(urlOf('127.0.0.1', params)), (error: unknown) => {
        assert.ok(error instanceof AppError, String(error));
        assert.equal(error.code, 'unavailable');
        assert.match(error.message, reason);
        return true;
      });
    }
  });

  test('sslmode=disable sends no certificate and asks no TLS, whatever files are named: this server turns it away', async () => {
    await assert.rejects(
      sessionOf(urlOf('127.0.0.1', { sslmode: 'disable', ...trusted() })),
      /no pg_hba\.conf entry.*no encryption/,
    );
  });
});
