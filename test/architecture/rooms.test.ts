import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

/**
 * The rooms of src/, lowest first, as docs/architecture.md#rooms-and-what-each-may-import draws
 * them: a room imports only itself and the rooms before it, so every arrow points down.
 */
const ROOMS = [
  'errors.ts',
  'json-record.ts',
  'domain',
  'config.ts',
  'version.ts',
  'status-line.ts',
  'stop-signal.ts',
  'logger.ts',
  'tls',
  'storage',
  'meals-io',
  'keys',
  'ratelimit',
  'client',
  'webhooks',
  'listener',
  'openapi',
  'http',
  'metrics',
  'web',
  'host',
  'host-api',
  'app.ts',
  'serve',
  'server.ts',
  'cluster',
  'cli',
  'bin.ts',
];
const MAX_LINES = 300;
const MAX_INTERFACE_MEMBERS = 15;

const SRC = path.resolve('src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The room of a file under src/: its top folder, or the file itself at the top. */
function roomOf(file: string): string {
  const [first = ''] = path.relative(SRC, file).split(path.sep);
  return first.endsWith('.js') ? first.replace(/\.js$/, '.ts') : first;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.[^']+)'/g)].map(([, target = '']) => path.resolve(path.dirname(file), target));
}

const files = sourceFiles(SRC);

test('every room of src is named in the order of rooms', () => {
  const rooms = new Set(files.map(roomOf));
  assert.deepEqual(
    [...rooms].filter((room) => !ROOMS.includes(room)),
    [],
  );
});

test('every import points down: to the same room or one before it', () => {
  const upward: string[] = [];
  for (const file of files) {
    const room = roomOf(file);
    for (const target of importsOf(file)) {
      const targetRoom = roomOf(target);
      if (targetRoom !== room && ROOMS.indexOf(targetRoom) > ROOMS.indexOf(room)) {
        upward.push(`${path.relative(SRC, file)} imports ${path.relative(SRC, target)}`);
      }
    }
  }
  assert.deepEqual(upward, []);
});

test('domain imports nothing but itself and errors.ts', () => {
  const outside = files
    .filter((file) => roomOf(file) === 'domain')
    .flatMap((file) => importsOf(file).map((target) => ({ file, target })))
    .filter(({ target }) => !['domain', 'errors.ts'].includes(roomOf(target)))
    .map(({ file, target }) => `${path.relative(SRC, file)} imports ${path.relative(SRC, target)}`);
  assert.deepEqual(outside, []);
});

test(`no source file is over ${MAX_LINES} lines`, () => {
  const long = files
    .map((file) => ({ file: path.relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines}`);
  assert.deepEqual(long, []);
});

test(`no storage interface has more than ${MAX_INTERFACE_MEMBERS} members of its own`, () => {
  const wide: string[] = [];
  for (const file of files.filter((file) => roomOf(file) === 'storage')) {
    const text = readFileSync(file, 'utf8');
    for (const [, name = '', body = ''] of text.matchAll(/^export interface (\w+)[^{]*\{\n([\s\S]*?)^\}/gm)) {
      // A member starts a line at the body's indentation: a method, a property or a signature.
      const members = body.split('\n').filter((line) => /^ {2}(readonly )?\w+[?(<:]/.test(line)).length;
      if (members > MAX_INTERFACE_MEMBERS) wide.push(`${path.relative(SRC, file)}: ${name} has ${members}`);
    }
  }
  assert.deepEqual(wide, []);
});
