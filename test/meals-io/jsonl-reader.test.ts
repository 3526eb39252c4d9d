import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readJsonl } from '../../src/meals-io/jsonl-reader.js';

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
  for (const e of errors) assert.match(e.message, /^not valid JSON \(/);
});

test('a line holding JSON that is not an object is refused, naming what it holds', () => {
  const { records, errors } = readJsonl('[1,2]\n42\nnull\n"x"\n');
  assert.deepEqual(records, []);
  assert.deepEqual(errors, [
    { line: 1, message: 'a record must be a JSON object, got an array' },
    { line: 2, message: 'a record must be a JSON object, got a number' },
    { line: 3, message: 'a record must be a JSON object, got null' },
    { line: 4, message: 'a record must be a JSON object, got a string' },
  ]);
});
