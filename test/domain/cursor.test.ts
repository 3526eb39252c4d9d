import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { createCursorCodec } from '../../src/domain/cursor.js';
import type { FeedPosition } from '../../src/domain/meal.js';

const SECRET = randomBytes(32);
const codec = createCursorCodec(SECRET);
const USER = 'u_42';
const POSITION: FeedPosition = { modifiedAt: Date.UTC(2025, 0, 1, 12, 0, 0, 123), id: 'm_7Hq2ZkA9' };
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('cursors', () => {
  test('decode back to the position they were made from, for the same user', () => {
    const cursor = codec.encode(USER, POSITION);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(codec.decode(USER, cursor), POSITION);
  });

  test('are accepted by another codec with the same secret (another instance on the same store)', () => {
    const cursor = codec.encode(USER, POSITION);
    assert.deepEqual(createCursorCodec(Buffer.from(SECRET)).decode(USER, cursor), POSITION);
  });

  test('made with another secret are refused', () => {
    const cursor = createCursorCodec(randomBytes(32)).encode(USER, POSITION);
    assert.equal(codec.decode(USER, cursor), undefined);
  });

  test("another user's cursor is refused", () => {
    const cursor = codec.encode('u_1', POSITION);
    assert.equal(codec.decode('u_2', cursor), undefined);
    assert.deepEqual(codec.decode('u_1', cursor), POSITION);
  });

  test('a user id that is a prefix of another with the rest moved into the id does not collide', () => {
    const cursor = codec.encode('u_1', { modifiedAt: 5, id: '2x' });
    assert.equal(codec.decode('u_12', cursor), undefined);
  });

  test('every single-character alteration, at every position, is refused', () => {
    const cursor = codec.encode(USER, POSITION);
    let tried = 0;
    for (let i = 0; i < cursor.length; i += 1) {
      for (const c of BASE64URL) {
        if (c === cursor[i]) continue;
        const altered = cursor.slice(0, i) + c + cursor.slice(i + 1);
        tried += 1;
        assert.equal(codec.decode(USER, altered), undefined, `position ${i} changed to ${c}: ${altered}`);
      }
    }
    assert.equal(tried, cursor.length * 63);
  });

  test('a truncated, extended, padded, non-base64url, garbage or empty cursor is refused', () => {
    const cursor = codec.encode(USER, POSITION);
    for (let n = 0; n < cursor.length; n += 1) {
      assert.equal(codec.decode(USER, cursor.slice(0, n)), undefined, `first ${n} characters`);
      assert.equal(codec.decode(USER, cursor.slice(cursor.length - n)), undefined, `last ${n} characters`);
    }
    const standardBase64 = Buffer.from(cursor, 'base64url').toString('base64');
    assert.notEqual(standardBase64, cursor, 'the 41-byte cursor needs padding in standard base64');
    for (const bad of [
      `${cursor}A`,
      `${cursor}AA`,
      `${cursor}=`,
      `${cursor}==`,
      `A${cursor}`,
      Buffer.from(cursor, 'base64url').toString('base64'),
      `${cursor.slice(0, -1)}+`,
      `${cursor.slice(0, -1)}/`,
      ` ${cursor}`,
      `${cursor}\n`,
      '',
      'garbage',
      'A'.repeat(64),
      Buffer.from('{"modifiedAt":0,"id":"m_1"}').toString('base64url'),
      randomBytes(48).toString('base64url'),
    ]) {
      assert.equal(codec.decode(USER, bad), undefined, JSON.stringify(bad));
    }
  });

  test('ids with unicode, commas, quotes and separators round-trip', () => {
    for (const id of ['m,1,2', 'repas-été-🍝', '"quoted"', 'a\u0000b', 'x'.repeat(200), 'tab\tand,comma']) {
      const position = { modifiedAt: 1_735_689_600_000, id };
      assert.deepEqual(codec.decode(USER, codec.encode(USER, position)), position, JSON.stringify(id));
    }
  });

  test('modifiedAt values 0 and far in the future round-trip exactly', () => {
    for (const modifiedAt of [0, 1, Date.UTC(9999, 11, 31, 23, 59, 59, 999)]) {
      const position = { modifiedAt, id: 'm_1' };
      assert.deepEqual(codec.decode(USER, codec.encode(USER, position)), position);
    }
  });

  test('two different positions give different cursors', () => {
    const a = codec.encode(USER, POSITION);
    const b = codec.encode(USER, { ...POSITION, modifiedAt: POSITION.modifiedAt + 1 });
    const c = codec.encode(USER, { ...POSITION, id: `${POSITION.id}x` });
    assert.equal(new Set([a, b, c]).size, 3);
  });
});
