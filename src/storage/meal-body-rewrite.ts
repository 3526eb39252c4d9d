import { MEAL_BODY_VERSION, MEAL_FIELD_TABLE } from '../domain/meal-fields.js';

/**
 * The rewrite of stored meal bodies when the Meal gains a field (docs/development.md#adding-a-meal-field).
 * A live meal's body is its JSON as written (domain/meal-json.ts); a body written before a
 * field existed lacks it, and every field is always present in the API's answers, so the
 * store writes the field, null, into each older body, in place: modifiedAt and the change
 * clock do not move, so no consumer downloads its meals again and every Meals-Digest stays as
 * it was (docs/api.md#the-persons-day). Both backends run the SQL made here, in batches at open
 * (sqlite/sqlite-body-rewrite.ts, postgres/postgres-body-rewrite.ts).
 */

/** The `settings` row that holds the version of the store's meal bodies (UTF-8 digits; absent: 0). */
export const MEAL_BODY_VERSION_SETTING = 'meal_body_version';

/** Meals rewritten per statement: each holds the store's write lock (or its rows' locks) for milliseconds. */
export const MEALS_PER_REWRITE_BATCH = 2_000;

/**
 * One added field: `,"name":null` goes before the key of the field that follows it in bodies
 * of its time (`anchor`). Keys cannot occur inside a body's strings: JSON escapes their quotes.
 */
interface BodyInsertion {
  readonly marker: string;
  readonly anchor: string;
  readonly text: string;
}

/** The insertions that bring a body of `version` up to MEAL_BODY_VERSION, in table order. */
function insertionsSince(version: number): readonly BodyInsertion[] {
  const insertions: BodyInsertion[] = [];
  MEAL_FIELD_TABLE.forEach((field, index) => {
    if (field.since <= version) return;
    const next = MEAL_FIELD_TABLE.slice(index + 1).find((later) => later.since < field.since);
    if (next === undefined) throw new Error(`the Meal field ${field.name} has no older field after it`);
    insertions.push({ marker: `,"${field.name}":`, anchor: `,"${next.name}":`, text: `,"${field.name}":null` });
  });
  return insertions;
}

/** A text literal of SQL: the table's names hold no quote, and one would be doubled. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

export interface BodyRewriteSql {
  /** The body with every missing field written in. */
  readonly expression: string;
  /** True for a live meal's body that lacks a field and has the anchor it goes before. */
  readonly condition: string;
}

/**
 * The SQL of the rewrite from `version` (undefined when the bodies are up to date): `position`
 * is the backend's 1-based substring search, 0 when absent (SQLite's instr, PostgreSQL's strpos).
 */
export function bodyRewriteSql(version: number, position: string): BodyRewriteSql | undefined {
  const insertions = insertionsSince(version);
  if (insertions.length === 0) return undefined;
  let expression = 'body';
  const conditions: string[] = [];
  for (const { marker, anchor, text } of insertions) {
    const at = `${position}(${expression}, ${literal(anchor)})`;
    conditions.push(`(${position}(body, ${literal(marker)}) = 0 AND ${position}(body, ${literal(anchor)}) > 0)`);
    // Each field only where it is missing: a body may have been written between two versions.
    expression = `CASE WHEN ${position}(${expression}, ${literal(marker)}) = 0 AND ${at} > 0 THEN substr(${expression}, 1, ${at} - 1) || ${literal(text)} || substr(${expression}, ${at}) ELSE ${expression} END`;
  }
  return { expression, condition: `(${conditions.join(' OR ')})` };
}

/** The version a `settings` value names (absent: 0, a store from before versions). */
export function storedBodyVersion(value: Buffer | undefined): number {
  return value === undefined ? 0 : Number(value.toString('utf8'));
}

export const CURRENT_BODY_VERSION = Buffer.from(String(MEAL_BODY_VERSION), 'utf8');
