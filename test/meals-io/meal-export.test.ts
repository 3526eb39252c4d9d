import { NO_NUTRIENTS } from '../support/contract.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Meal } from '../../src/domain/meal.js';
import { writeFileAtomically } from '../../src/meals-io/atomic-file.js';
import { CSV_HEADER, csvRow } from '../../src/meals-io/csv-writer.js';
import { type TextSink, writeMealExport } from '../../src/meals-io/meal-export.js';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'meal-export-io-'));
after(() => fs.rmSync(folder, { recursive: true, force: true }));

function meal(n: number): Meal {
  return {
    id: `m_${n}`,
    description: 'd'.repeat(200),
    title: `t${n}`,
    type: 'snack',
    date: Date.UTC(2025, 0, 1),
    utcOffset: null,
    ...NO_NUTRIENTS,
    caloriesTotal: n,
    modifiedAt: Date.UTC(2025, 0, 2) + n,
  };
}

async function* mealsUpTo(count: number, seen: { count: number }): AsyncGenerator<Meal> {
  for (let n = 1; n <= count; n += 1) {
    seen.count = n;
    yield meal(n);
  }
}

function collectingSink(acceptWrites = Number.POSITIVE_INFINITY): TextSink & { chunks: string[] } {
  const chunks: string[] = [];
  return {
    chunks,
    async write(text) {
      chunks.push(text);
      return chunks.length < acceptWrites;
    },
  };
}

test('a CSV export is the header then one row per meal, written in a few large chunks', async () => {
  const sink = collectingSink();
  const count = await writeMealExport(mealsUpTo(1000, { count: 0 }), 'csv', sink);
  assert.equal(count, 1000);
  assert.equal(sink.chunks.join(''), CSV_HEADER + Array.from({ length: 1000 }, (_, i) => csvRow(meal(i + 1))).join(''));
  assert.ok(sink.chunks.length > 1 && sink.chunks.length < 10, `${sink.chunks.length} chunks`);
});

test('an export of no meals is the CSV header alone, or nothing at all in JSON Lines', async () => {
  const csv = collectingSink();
  assert.equal(await writeMealExport(mealsUpTo(0, { count: 0 }), 'csv', csv), 0);
  assert.deepEqual(csv.chunks, [CSV_HEADER]);
  const jsonl = collectingSink();
  assert.equal(await writeMealExport(mealsUpTo(0, { count: 0 }), 'jsonl', jsonl), 0);
  assert.deepEqual(jsonl.chunks, []);
});

test('an export stops reading meals once the sink says its reader has gone', async () => {
  const seen = { count: 0 };
  await writeMealExport(mealsUpTo(100_000, seen), 'jsonl', collectingSink(1));
  assert.ok(seen.count < 1000, `read ${seen.count} meals after the reader left`);
});

test('an atomic write replaces the file whole and leaves no temporary file', async () => {
  const target = path.join(folder, 'replace.csv');
  fs.writeFileSync(target, 'old');
  const result = await writeFileAtomically(target, async (sink) => {
    await sink.write('new ');
    await sink.write('content');
    return 7;
  });
  assert.equal(result, 7);
  assert.equal(fs.readFileSync(target, 'utf8'), 'new content');
  assert.deepEqual(fs.readdirSync(folder), ['replace.csv']);
});

test('a failed atomic write leaves the old file as it was and removes its temporary file', async () => {
  const target = path.join(folder, 'keep.csv');
  fs.writeFileSync(target, 'old');
  await assert.rejects(
    writeFileAtomically(target, async (sink) => {
      await sink.write('half');
      throw new Error('the store went away');
    }),
    /the store went away/,
  );
  assert.equal(fs.readFileSync(target, 'utf8'), 'old');
  assert.deepEqual(fs.readdirSync(folder).sort(), ['keep.csv', 'replace.csv']);
});
