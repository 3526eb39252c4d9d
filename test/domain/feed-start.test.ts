import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareFeedPositions, feedStart, prunedTombstoneBelongs } from '../../src/domain/feed-start.js';

const T = Date.UTC(2025, 5, 10, 12);
const pruned = { modifiedAt: T, id: 'm5' };

describe('where a page starts', () => {
  test('without a cursor, at lastModifiedSince', () => {
    assert.deepEqual(feedStart(T, undefined), { kind: 'from', modifiedAt: T });
  });

  test('with a cursor at or after lastModifiedSince, after the cursor', () => {
    const cursor = { modifiedAt: T, id: 'a' };
    assert.deepEqual(feedStart(T, cursor), { kind: 'after', position: cursor });
    assert.deepEqual(feedStart(T - 1, cursor), { kind: 'after', position: cursor });
  });

  test('with a cursor before lastModifiedSince, at lastModifiedSince', () => {
    assert.deepEqual(feedStart(T + 1, { modifiedAt: T, id: 'zzz' }), { kind: 'from', modifiedAt: T + 1 });
  });
});

describe('whether a pruned tombstone belongs in the answer (410 resync_required)', () => {
  test('never when nothing was pruned, from any start', () => {
    assert.equal(prunedTombstoneBelongs(feedStart(0, undefined), undefined), false);
    assert.equal(prunedTombstoneBelongs(feedStart(0, { modifiedAt: 0, id: '' }), undefined), false);
  });

  test('lastModifiedSince is inclusive: at the pruned tombstone or before it, yes; one millisecond after, no', () => {
    assert.equal(prunedTombstoneBelongs(feedStart(T, undefined), pruned), true);
    assert.equal(prunedTombstoneBelongs(feedStart(0, undefined), pruned), true);
    assert.equal(prunedTombstoneBelongs(feedStart(T + 1, undefined), pruned), false);
  });

  test('the cursor is exclusive: exactly at the pruned tombstone, no; just before it, yes; after it, no', () => {
    const at = (modifiedAt: number, id: string) => feedStart(0, { modifiedAt, id });
    assert.equal(prunedTombstoneBelongs(at(T, 'm5'), pruned), false);
    assert.equal(prunedTombstoneBelongs(at(T, 'm4'), pruned), true, 'same millisecond, smaller id');
    assert.equal(prunedTombstoneBelongs(at(T - 1, 'zzz'), pruned), true);
    assert.equal(prunedTombstoneBelongs(at(T, 'm6'), pruned), false);
    assert.equal(prunedTombstoneBelongs(at(T + 1, ''), pruned), false);
  });

  test('with both, the later start decides', () => {
    const behindCursor = { modifiedAt: T - 10, id: 'x' };
    assert.equal(prunedTombstoneBelongs(feedStart(T - 20, behindCursor), pruned), true);
    assert.equal(prunedTombstoneBelongs(feedStart(T + 1, behindCursor), pruned), false);
  });
});

describe('feed position order', () => {
  test('is modifiedAt, then id by UTF-8 bytes', () => {
    assert.equal(compareFeedPositions({ modifiedAt: 1, id: 'b' }, { modifiedAt: 2, id: 'a' }), -1);
    assert.equal(compareFeedPositions({ modifiedAt: 2, id: 'a' }, { modifiedAt: 2, id: 'a' }), 0);
    assert.equal(compareFeedPositions({ modifiedAt: 2, id: 'Z' }, { modifiedAt: 2, id: 'a' }) < 0, true);
    // JavaScript's < compares UTF-16 units and puts U+1F600 (0xD83D…) first; the stores compare
    // UTF-8 bytes, where U+FF5E (EF…) comes before it (F0…).
    assert.equal(compareFeedPositions({ modifiedAt: 2, id: '\uff5e' }, { modifiedAt: 2, id: '\u{1f600}' }) < 0, true);
    assert.equal(compareFeedPositions({ modifiedAt: 2, id: '\u{1f600}' }, { modifiedAt: 2, id: '\uff5e' }) > 0, true);
  });
});
