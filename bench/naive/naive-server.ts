import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import Fastify from 'fastify';

/**
 * The naive design's server, for comparison only: the same Fastify + TLS stack as the real
 * one, a query on the one-column-per-field table, each row turned into an object, then
 * JSON.stringify of the page. Answers only the benchmark's requests (a bearer key from
 * --keys, lastModifiedSince and limit). Run as its own process:
 *   node --import tsx bench/naive/naive-server.ts --db F --cert F --key F --keys F
 * It prints `listening on https://127.0.0.1:PORT` once ready and exits on SIGTERM.
 */

interface NaiveRow {
  readonly id: string;
  readonly description: string;
  readonly title: string;
  readonly type: string;
  readonly date: number;
  readonly utc_offset: string | null;
  readonly calories_total: number | null;
  readonly proteins_g: number | null;
  readonly fats_g: number | null;
  readonly carbs_g: number | null;
  readonly fibers_g: number | null;
  readonly sodium_mg: number | null;
  readonly iron_mg: number | null;
  readonly calcium_mg: number | null;
  readonly modified_at: number;
}

interface MealsQuery {
  readonly lastModifiedSince: string;
  readonly limit?: number;
}

const { values } = parseArgs({
  options: { db: { type: 'string' }, cert: { type: 'string' }, key: { type: 'string' }, keys: { type: 'string' } },
  strict: true,
});
if (values.db === undefined || values.cert === undefined || values.key === undefined || values.keys === undefined) {
  process.stderr.write('usage: naive-server --db F --cert F --key F --keys F\n');
  process.exit(2);
}
/** SHA-256 hex digest of a key -> its user. */
const users = new Map(Object.entries(JSON.parse(readFileSync(values.keys, 'utf8')) as Record<string, string>));

const db = new BetterSqlite3(values.db, { readonly: true });
db.pragma('cache_size = -65536');
db.pragma('mmap_size = 268435456');
const page = db.prepare<[string, number, number], NaiveRow>(
  'SELECT * FROM meals WHERE user_id = ? AND modified_at >= ? AND deleted = 0 ORDER BY modified_at, id LIMIT ?',
);

const app = Fastify({
  logger: { level: 'warn' },
  https: { cert: readFileSync(values.cert), key: readFileSync(values.key), minVersion: 'TLSv1.2' },
});

app.get<{ Querystring: MealsQuery }>(
  '/v1/meals',
  {
    schema: {
      querystring: {
        type: 'object',
        required: ['lastModifiedSince'],
        properties: {
          lastModifiedSince: { type: 'string' },
          limit: { type: 'integer', minimum: 1, maximum: 5000 },
        },
      },
    },
  },
  async (request, reply) => {
    const token = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const userId = token === undefined ? undefined : users.get(createHash('sha256').update(token).digest('hex'));
    if (userId === undefined) return reply.code(401).send({ error: { code: 'invalid_api_key' } });
    const since = Date.parse(request.query.lastModifiedSince);
    const limit = request.query.limit ?? 1000;
    const rows = page.all(userId, since, limit + 1);
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    const meals = rows.map((row) => ({
      id: row.id,
      description: row.description,
      title: row.title,
      type: row.type,
      date: new Date(row.date).toISOString(),
      utcOffset: row.utc_offset,
      caloriesTotal: row.calories_total,
      proteins_g: row.proteins_g,
      fats_g: row.fats_g,
      carbs_g: row.carbs_g,
      fibers_g: row.fibers_g,
      sodium_mg: row.sodium_mg,
      iron_mg: row.iron_mg,
      calcium_mg: row.calcium_mg,
      modifiedAt: new Date(row.modified_at).toISOString(),
    }));
    const last = meals[meals.length - 1];
    const body = {
      ok: true,
      userId,
      lastModifiedSince: new Date(since).toISOString(),
      count: meals.length,
      meals,
      hasMore,
      nextCursor: last === undefined ? null : Buffer.from(`${last.modifiedAt}|${last.id}`).toString('base64url'),
    };
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
  },
);

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${address}\n`);
process.once('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
