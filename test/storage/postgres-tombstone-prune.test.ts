import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PRUNE_STATEMENT } from '../../src/storage/postgres/postgres-tombstone-prune.js';
import { type MigratedPostgresSchema, newMigratedPostgresSchema, postgresSkipReason } from '../support/postgres.js';

// The prune's statement as PostgreSQL plans it once it keeps a generic plan (a prepared
// statement's sixth run on a connection, or plan_cache_mode): its delete must still find the
// tombstones by their index, bounded, not read every tombstone and filter them row by row, which
// made each piece of a prune of a million read all that was left.
const skip = await postgresSkipReason();

let store: MigratedPostgresSchema;

before(async () => {
  if (skip === undefined) store = await newMigratedPostgresSchema('prune_plan', 1);
});

after(async () => {
  await store?.remove();
});

test("a piece's delete is bounded in the tombstones' index under a generic plan", { skip: skip ?? false }, async () => {
  const { sql } = store;
  await sql.unsafe('SET plan_cache_mode = force_generic_plan');
  await sql.unsafe(`PREPARE prune_piece(bigint, bigint) AS ${PRUNE_STATEMENT}`);
  const plan = (await sql.unsafe<{ 'QUERY PLAN': string }[]>('EXPLAIN EXECUTE prune_piece(1, 10)'))
    .map((row) => row['QUERY PLAN'])
    .join('\n');
  // The delete's node and the nodes under it (indented deeper), apart from the rest of the statement.
  const lines = plan.split('\n');
  const at = lines.findIndex((line) => line.includes('Delete on meals'));
  const depth = (line: string) => line.search(/\S/);
  const end = lines.findIndex((line, n) => n > at && depth(line) <= depth(lines[at] ?? ''));
  const deleted = lines.slice(at, end < 0 ? undefined : end).join('\n');
  assert.match(deleted, /Index Cond: \(modified_at < \$\d+\)/, plan);
  // The bound is the index's: no tombstone before the bound is read only to be filtered out.
  assert.doesNotMatch(deleted, /Filter:[^\n]* OR /, plan);
  assert.doesNotMatch(plan, /Seq Scan on meals/, plan);
});
