import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readJsonl, readJsonlStream } from '../../src/meals-io/jsonl-reader.js';

test('each JSON object line is a record with its 1-based line number; blank lines are skipped', () => {
  const { records, errors } = readJsonl('{"a":1}\n\n   \n{"b":2}\n');
  assert.deepEqual(errors, []);
  assert.deepEqual(records, [
    { line: 1, fields: { a: 1 } },
    { line: 4, fields: { b: 2 } },
  ]);
});

test('CRLF line ends are read like LF ones', () => {
  const { records, errors } = readJsonl('{"a":"x"}\r\n\r\n{"b":2}\r\n');
  assert.deepEqual(errors, []);
  assert.deepEqual(
    records.map((r) => [r.line, r.fields]),
    [
      [1, { a: 'x' }],
      [3, { b: 2 }],
    ],
  );
});

test('a last line without a line end is read', () => {
  assert.deepEqual(readJsonl('{"a":1}\n{"a":2}').records.length, 2);
});

test('an empty input has no records and no faults', () => {
  assert.deepEqual(readJsonl(''), { records: [], errors: [] });
});

test('every line that is not JSON is reported with its line, and the good lines are still read', () => {
  const { records, errors } = readJsonl('{"a":1}\n{"a":\n{"a":3}\nnope\n');
  assert.deepEqual(
    records.map((r) => r.line),
    [1, 3],
  );
  assert.deepEqual(
    errors.map((e) => e.line),
    [2, 4],
  );
  for (const e of errors) assert.match(e.message, /^Not valid JSON \(/);
});

test('a line holding JSON that is not an object is refused, naming what it holds', () => {
  const { records, errors } = readJsonl('[1,2]\n42\nnull\n"x"\n');
  assert.deepEqual(records, []);
  assert.deepEqual(errors, [
    { line: 1, message: 'A record must be a JSON object, got an array.' },
    { line: 2, message: 'A record must be a JSON object, got a number.' },
    { line: 3, message: 'A record must be a JSON object, got null.' },
    { line: 4, message: 'A record must be a JSON object, got a string.' },
  ]);
});

test('a line past 1 MiB is a fault as soon as it passes, its bytes dropped until it ends; the lines after it are read', async () => {
  const good = (id: string) => JSON.stringify({ id, type: 'lunch' });
  // Fed as an import reads: pieces of 64 KiB, the long line spread over many of them.
  const text = `${good('a')}\n${'x'.repeat(3 * 1024 * 1024)}\n${good('b')}\n{"c":\n`;
  const pieces = (async function* () {
    for (let at = 0; at < text.length; at += 65_536) yield text.slice(at, at + 65_536);
  })();
  const items = [];
  for await (const item of readJsonlStream(pieces)) items.push(item);
  assert.deepEqual(
    items.map((item) => ('message' in item ? [item.line, item.message.slice(0, 30)] : [item.line, item.fields.id])),
    [
      [1, 'a'],
      [2, 'A record is longer than 1 MiB '],
      [3, 'b'],
      [4, 'Not valid JSON (Unexpected end'],
    ],
  );
  // A line that ends within one piece is measured too, in bytes of UTF-8 (3 a character here).
  const { errors } = readJsonl(`${good('a')}\n"${'€'.repeat(400_000)}"\n`);
  assert.deepEqual(errors, [
    { line: 2, message: 'A record is longer than 1 MiB (is this JSON Lines, one record per line?).' },
  ]);
});

test('the longest valid meal, its texts written as JSON escapes, is read', () => {
  const text = '\\ud83d\\ude00'.repeat(10_000);
  const { records, errors } = readJsonl(`{"id":"a","title":"${text}","description":"${text}","type":"lunch"}\n`);
  assert.deepEqual(errors, []);
  assert.equal(records[0]?.fields.title, '😀'.repeat(10_000));
});
