import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

/**
 * The rooms of src/, lowest first, as docs/architecture.md#rooms-and-what-each-may-import draws
 * them: a room imports only itself and the rooms before it, so every arrow points down. The
 * table is read and held to this list (the last tests), so that neither drifts from the other.
 */
const ROOMS = [
  'errors.ts',
  'json-record.ts',
  'domain',
  'config.ts',
  'version.ts',
  'status-line.ts',
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
  'meal-host',
  'host-api',
  'app.ts',
  'serve',
  'server.ts',
  'cluster',
  'cli',
  'bin.ts',
];
/**
 * Rooms that may import less than every room before them, each with the rooms it may import
 * besides itself: the table's "Imports only itself and …" of the room's row.
 */
const ONLY_IMPORTS: Readonly<Record<string, readonly string[]>> = { domain: ['errors.ts'] };
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

test('a room whose imports are narrowed imports only itself and the rooms it is given', () => {
  const outside = files
    .flatMap((file) => importsOf(file).map((target) => ({ file, target, allowed: ONLY_IMPORTS[roomOf(file)] })))
    .filter(
      ({ file, target, allowed }) => allowed !== undefined && ![roomOf(file), ...allowed].includes(roomOf(target)),
    )
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

/** The rows of docs/architecture.md's table of rooms: the rooms each names, and its "Imports only …" if it has one. */
function tableOfRooms(): { rooms: string[]; only: string[] | undefined }[] {
  const page = readFileSync(path.resolve('docs/architecture.md'), 'utf8');
  const section = page.split(/^## /m).find((part) => part.startsWith('Rooms, and what each may import')) ?? '';
  const names = (text: string): string[] =>
    [...text.matchAll(/`([^`]+)`/g)].map(([, name = '']) => name.replace(/\/$/, ''));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, rooms = '', job = ''] = line.split('|').map((cell) => cell.trim());
      const only = /Imports only itself and ((?:`[^`]+`(?:, | and )?)+)/.exec(job)?.[1];
      return { rooms: names(rooms), only: only === undefined ? undefined : names(only) };
    });
}

test('docs/architecture.md names every room of the list, and no other, in its order', () => {
  assert.deepEqual(
    tableOfRooms().flatMap(({ rooms }) => rooms),
    ROOMS,
  );
});

test('docs/architecture.md narrows the imports of the rooms the list narrows, to the same rooms', () => {
  const narrowed = tableOfRooms().flatMap(({ rooms, only }) =>
    only === undefined ? [] : rooms.map((room) => [room, only]),
  );
  assert.deepEqual(Object.fromEntries(narrowed), ONLY_IMPORTS);
});
