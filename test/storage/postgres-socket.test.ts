import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { connectPostgres, postgresTarget } from '../../src/storage/postgres/postgres-connect.js';
import { adminClient, newPostgresSchema, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { skipUnlessRequired } from '../support/required-services.js';
import { assertServesQuietly, openerAt, type StoreLocation } from '../support/store-fixtures.js';
import { runChangeSignalsSuite } from './change-signals.suite.js';

// A store on PostgreSQL's Unix socket, written the ways libpq reads it
// (docs/configuration.md#postgresql-over-a-unix-socket). The socket is the test server's
// own: its folder and port are asked of it over TCP first.

interface ServerSocket {
  readonly folder: string;
  readonly port: number;
}

async function serverSocket(): Promise<ServerSocket | string> {
  const sql = adminClient();
  try {
    const [row] = await sql<{ folders: string; port: string }[]>`
      SELECT current_setting('unix_socket_directories') AS folders, current_setting('port') AS port`;
    // An entry starting with @ is Linux's abstract namespace, which has no folder to name.
    const folder = row?.folders
      .split(',')
      .map((entry) => entry.trim())
      .find((entry) => entry.startsWith('/'));
    if (folder === undefined || row === undefined) return `the test PostgreSQL listens on no socket folder`;
    return { folder, port: Number(row.port) };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const pgSkip = await postgresSkipReason();
const found = pgSkip === undefined ? await serverSocket() : pgSkip;
const skip = typeof found === 'string' ? skipUnlessRequired(found) : undefined;

/** The schema's TCP URL written with the socket instead, in one of libpq's forms. */
type SocketForm = (store: URL, socket: ServerSocket) => string;

const ENCODED_HOST: SocketForm = (store, socket) =>
  `postgres://${store.username}@${encodeURIComponent(socket.folder)}:${socket.port}${store.pathname}${store.search}`;
const HOST_PARAMETER: SocketForm = (store, socket) =>
  `postgres://${store.username}@${store.pathname}${store.search}&host=${encodeURIComponent(socket.folder)}&port=${socket.port}`;

function socketLocation(form: SocketForm): (label: string) => Promise<StoreLocation> {
  return async (label) => {
    if (typeof found === 'string') throw new Error(found);
    const store: TestPostgresStore = await newPostgresSchema(label);
    return { location: form(new URL(store.url), found), remove: () => store.remove() };
  };
}

describe('PostgreSQL URLs: the address libpq reads and postgres.js does not', () => {
  test('a percent-encoded host that is a folder is the socket folder; the URL goes on as it is', () => {
    const url = 'postgres://app@%2Fvar%2Frun%2Fpostgresql:5433/meals?search_path=me';
    assert.deepEqual(postgresTarget(url), { url, options: { host: '/var/run/postgresql' } });
  });

  test('host and port in the query win over the URL own, and leave the query', () => {
    assert.deepEqual(postgresTarget('postgres://app@db.internal:6000/meals?host=/tmp&search_path=me&port=5433'), {
      url: 'postgres://app@db.internal:6000/meals?search_path=me',
      options: { host: '/tmp', port: 5433 },
    });
    assert.deepEqual(postgresTarget('postgresql:///meals?host=/var/run/postgresql'), {
      url: 'postgresql:///meals',
      options: { host: '/var/run/postgresql' },
    });
  });

  test('credentials and no host (libpq, SQLAlchemy) are read with the query host', () => {
    assert.deepEqual(postgresTarget('postgres://app:pw@/meals?host=/var/run/postgresql'), {
      url: 'postgres://app:pw@localhost/meals',
      options: { host: '/var/run/postgresql' },
    });
  });

  test('any other URL goes to postgres.js untouched, a multi-host one included', () => {
    for (const url of [
      'postgres://app:pw@127.0.0.1:5432/meals?search_path=me&sslmode=require',
      'postgres://app@db1:5432,db2:5432/meals',
      'postgres://app@db.internal/meals',
    ])
      assert.deepEqual(postgresTarget(url), { url, options: {} });
  });

  test('a port that is no port is refused as unavailable, naming it, without the password', () => {
    for (const port of ['abc', '0', '70000', '54 32']) {
      assert.throws(
        () => postgresTarget(`postgres://app:s3cret@/meals?host=/tmp&port=${encodeURIComponent(port)}`),
        (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.code, 'unavailable');
          assert.ok(error.message.includes(`"${port}"`), error.message);
          assert.ok(!error.message.includes('s3cret'), error.message);
          return true;
        },
      );
    }
  });
});

describe('PostgreSQL over its Unix socket', { skip: skip ?? false }, () => {
  for (const [name, form] of [
    ['the percent-encoded folder as host', ENCODED_HOST],
    ['?host= and ?port= after credentials and no host', HOST_PARAMETER],
  ] as const) {
    describe(name, () => {
      let location: StoreLocation;
      before(async () => {
        location = await socketLocation(form)('socket');
      });
      after(async () => {
        await location?.remove();
      });

      test('connects through the socket, not TCP', async () => {
        const sql = connectPostgres(location.location, { max: 1, onnotice: () => undefined });
        try {
          const [row] = await sql<{ socket: boolean }[]>`SELECT inet_server_addr() IS NULL AS socket`;
          assert.equal(row?.socket, true);
        } finally {
          await sql.end({ timeout: 1 });
        }
      });

      test('a serving store opens there with its signals on LISTEN (nothing to say), and saves and serves', async () => {
        await assertServesQuietly(location.location);
      });
    });
  }
});

// The LISTEN connection is the store's own URL here (no --direct-db): over the socket too.
runChangeSignalsSuite({
  name: 'PostgreSQL over its Unix socket',
  unavailable: skip,
  open: openerAt(socketLocation(HOST_PARAMETER), { serving: true }),
});
