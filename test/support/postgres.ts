import { randomBytes } from 'node:crypto';
import postgres, { type Sql } from 'postgres';
import { openStorage } from '../../src/storage/open-storage.js';
import { skipUnlessRequired } from './required-services.js';

/** The PostgreSQL the scale-out tests use: the machine's, unless MEAL_EXPORT_TEST_PG_URL says otherwise. */
export const TEST_PG_URL = process.env.MEAL_EXPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A one-connection client of the test PostgreSQL (or of `url`), as every helper here uses. */
export function adminClient(url: string = TEST_PG_URL) {
  return postgres(url, { max: 1, connect_timeout: 3, onnotice: () => undefined });
}

/** Why the PostgreSQL tests cannot run here (printed as the skip reason), or undefined when it answers. */
export async function postgresSkipReason(url: string = TEST_PG_URL): Promise<string | undefined> {
  const sql = adminClient(url);
  try {
    await sql`SELECT 1`;
    return skipUnlessRequired(undefined);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return skipUnlessRequired(`no PostgreSQL answers at ${url} (${reason}): start one, or set MEAL_EXPORT_TEST_PG_URL`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const uniqueName = (label: string) => `me_test_${label}_${randomBytes(5).toString('hex')}`;

export interface TestPostgresStore {
  /** A `postgres://` URL for the store: what `--db` takes. */
  readonly url: string;
  remove(): Promise<void>;
}

/** A fresh, empty schema of the test PostgreSQL, named in the URL's search_path (cheap: for storage tests). */
export async function newPostgresSchema(label = 'store'): Promise<TestPostgresStore> {
  const schema = uniqueName(label);
  const sql = adminClient();
  await sql.unsafe(`CREATE SCHEMA ${schema}`);
  await sql.end();
  const url = new URL(TEST_PG_URL);
  url.searchParams.set('search_path', schema);
  return {
    url: url.href,
    async remove() {
      const admin = adminClient();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** A migrated schema and a client on it (newMigratedPostgresSchema). */
export interface MigratedPostgresSchema extends TestPostgresStore {
  readonly sql: Sql;
}

/**
 * A schema as meal-export's migrations make it (a store opened on it once) and a client of `max`
 * connections on it, for the tests that read its tables and call its functions directly;
 * `remove()` ends the client and drops the schema.
 */
export async function newMigratedPostgresSchema(label: string, max: number): Promise<MigratedPostgresSchema> {
  const store = await newPostgresSchema(label);
  await (await openStorage(store.url)).close();
  const sql = postgres(store.url, { max, onnotice: () => undefined });
  return {
    url: store.url,
    sql,
    async remove() {
      await sql.end();
      await store.remove();
    },
  };
}

/**
 * A fresh, empty database of the test PostgreSQL (for servers and CLIs started as processes),
 * or of the server at `serverUrl` (the soak's `--postgres`).
 */
export async function newPostgresDatabase(label = 'db', serverUrl: string = TEST_PG_URL): Promise<TestPostgresStore> {
  const name = uniqueName(label);
  const sql = adminClient(serverUrl);
  await sql.unsafe(`CREATE DATABASE ${name}`);
  await sql.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async remove() {
      const admin = adminClient(serverUrl);
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
