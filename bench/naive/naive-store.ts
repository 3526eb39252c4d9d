import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { MEAL_BODY_VERSION } from '../../src/domain/meal-fields.js';
import type { Dataset } from '../harness/datasets.js';

/**
 * The naive design's store, for comparison only (never in src/): one column per field in a
 * rowid table with an index on (user_id, modified_at, id). Rows go in by the date the meal was
 * eaten, as an app records them, so one user's rows are scattered over the table (about one
 * page per row), as they are in a real table that many users write to at once. Built from the
 * seeded database with one INSERT … SELECT, and cached beside it.
 */
const SCHEMA = `
  CREATE TABLE meals (
    row_id         INTEGER PRIMARY KEY,
    id             TEXT    NOT NULL,
    user_id        TEXT    NOT NULL,
    description    TEXT    NOT NULL,
    title          TEXT    NOT NULL,
    type           TEXT    NOT NULL,
    date           INTEGER NOT NULL,
    utc_offset     TEXT,
    calories_total REAL,
    proteins_g     REAL,
    fats_g         REAL,
    carbs_g        REAL,
    fibers_g       REAL,
    sodium_mg      REAL,
    iron_mg        REAL,
    calcium_mg     REAL,
    modified_at    INTEGER NOT NULL,
    deleted        INTEGER NOT NULL DEFAULT 0
  );
`;

const EPOCH_MS = (field: string) => `CAST(round(unixepoch(body ->> '$.${field}', 'subsec') * 1000) AS INTEGER)`;

const COPY = `
  INSERT INTO meals (id, user_id, description, title, type, date, utc_offset, calories_total, proteins_g,
                     fats_g, carbs_g, fibers_g, sodium_mg, iron_mg, calcium_mg, modified_at, deleted)
  SELECT id, user_id, body ->> '$.description', body ->> '$.title', body ->> '$.type', ${EPOCH_MS('date')},
         body ->> '$.utcOffset', body ->> '$.caloriesTotal', body ->> '$.proteins_g', body ->> '$.fats_g', body ->> '$.carbs_g',
         body ->> '$.fibers_g', body ->> '$.sodium_mg', body ->> '$.iron_mg', body ->> '$.calcium_mg',
         modified_at, 0
  FROM seeded.meals WHERE deleted = 0
  ORDER BY body ->> '$.date', id
`;

/** The naive database for a dataset: built once (cached in the dataset's folder). */
export function ensureNaiveStore(dataset: Dataset, log: (line: string) => void): string {
  // Named by the Meal's body version: a dataset's copy made before a field was added is made again.
  const file = path.join(dataset.folder, `naive-${MEAL_BODY_VERSION}.db`);
  const done = path.join(dataset.folder, `naive-${MEAL_BODY_VERSION}.json`);
  if (existsSync(done)) return file;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  log('naive store: copying the seeded meals into one column per field…');
  const started = performance.now();
  const db = new BetterSqlite3(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    db.exec(SCHEMA);
    db.prepare('ATTACH DATABASE ? AS seeded').run(dataset.db);
    const copied = db.prepare(COPY).run().changes;
    db.exec('DETACH DATABASE seeded');
    db.exec('CREATE INDEX meals_by_user ON meals (user_id, modified_at, id)');
    db.pragma('wal_checkpoint(TRUNCATE)');
    const seconds = Math.round(performance.now() - started) / 1000;
    writeFileSync(done, `${JSON.stringify({ rows: copied, seconds })}\n`);
    log(`  ${copied} rows in ${seconds} s`);
  } finally {
    db.close();
  }
  return file;
}
