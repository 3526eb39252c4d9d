import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createKnownBlocks } from '../../src/ratelimit/known-blocks.js';

const T0 = Date.UTC(2025, 5, 10, 12);

describe("what a process knows of the brute-force guard's blocks", () => {
  test('a noted block lasts its wait, to the ms, then is forgotten', () => {
    const known = createKnownBlocks({ clock: 'caller' });
    assert.equal(known.size, 0);
    assert.equal(known.remainingMs('203.0.113.1', T0), 0);
    known.note('203.0.113.1', 40_000, T0);
    assert.equal(known.size, 1);
    assert.equal(known.remainingMs('203.0.113.1', T0 + 1), 39_999);
    assert.equal(known.remainingMs('203.0.113.1', T0 + 39_999), 1);
    assert.equal(known.remainingMs('203.0.113.2', T0 + 1), 0, 'another address is not blocked');
    assert.equal(known.remainingMs('203.0.113.1', T0 + 40_000), 0);
    assert.equal(known.size, 0, 'an ended block is dropped when read');
  });

  test('groups as the guard does: an IPv6 /64 together, an IPv4-mapped address as its IPv4 one', () => {
    const known = createKnownBlocks({ clock: 'caller' });
    known.note('2001:db8:1:2::1', 1000, T0);
    assert.equal(known.remainingMs('2001:db8:1:2:ffff:ffff:ffff:fffe', T0), 1000);
    assert.equal(known.remainingMs('2001:db8:1:3::1', T0), 0);
    known.note('::ffff:198.51.100.7', 1000, T0);
    assert.equal(known.remainingMs('198.51.100.7', T0), 1000);
  });

  test('remembers at most maxGroups: ended blocks go first, then the oldest', () => {
    const known = createKnownBlocks({ maxGroups: 3, clock: 'caller' });
    known.note('10.0.0.1', 10, T0);
    known.note('10.0.0.2', 60_000, T0);
    known.note('10.0.0.3', 60_000, T0);
    // 10.0.0.1's block has ended: it makes room.
    known.note('10.0.0.4', 60_000, T0 + 20);
    assert.equal(known.size, 3);
    assert.equal(known.remainingMs('10.0.0.2', T0 + 20), 59_980);
    // All three still blocked: the oldest noted makes room.
    known.note('10.0.0.5', 60_000, T0 + 20);
    assert.equal(known.size, 3);
    assert.equal(known.remainingMs('10.0.0.2', T0 + 20), 0);
    assert.equal(known.remainingMs('10.0.0.5', T0 + 20), 60_000);
    for (let i = 0; i < 10_000; i += 1) known.note(`10.1.${i >> 8}.${i & 255}`, 60_000, T0 + 30);
    assert.equal(known.size, 3);
  });

  test('measures on the monotonic clock: a wall clock set back an hour does not extend a block', async () => {
    const known = createKnownBlocks();
    known.note('203.0.113.9', 100, T0);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(known.remainingMs('203.0.113.9', T0 - 3_600_000), 0);
  });
});
