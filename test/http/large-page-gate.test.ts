import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { createLargePageGate } from '../../src/http/large-page-gate.js';

const OPTIONS = { smallPageLimit: 1000, capacity: 10_000, maxHoldMs: 60_000 };

/** Whether the promise has settled by the time the queued callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await sleep(0);
  return done;
}

describe('the large-page gate', () => {
  test('small pages pass without waiting or holding anything', async () => {
    const gate = createLargePageGate(OPTIONS);
    const holders = await Promise.all([gate.admit(5000), gate.admit(5000)]);
    for (let i = 0; i < 100; i += 1) assert.equal(gate.admit(1000), undefined);
    for (const release of holders) release?.();
  });

  test('large pages share the budget by their limit; the next waits until one is sent', async () => {
    const gate = createLargePageGate(OPTIONS);
    const first = await gate.admit(5000);
    const second = await gate.admit(5000);
    const third = gate.admit(5000);
    assert.ok(first !== undefined && second !== undefined && third !== undefined);
    assert.equal(await settled(third), false, 'the budget is spent');
    first();
    first(); // a second release gives nothing back twice
    assert.equal(await settled(third), true, 'admitted once a page is sent');
    const fourth = gate.admit(5000);
    assert.ok(fourth !== undefined);
    assert.equal(await settled(fourth), false, 'the double release did not free room');
    second();
    assert.equal(await settled(fourth), true);
  });

  test('first come, first served: a smaller page does not overtake a waiting larger one', async () => {
    const gate = createLargePageGate(OPTIONS);
    const held = await gate.admit(8000);
    const large = gate.admit(5000);
    const small = gate.admit(2000);
    assert.ok(held !== undefined && large !== undefined && small !== undefined);
    assert.equal(await settled(small), false, '2000 would fit, but 5000 came first');
    held();
    assert.equal(await settled(large), true);
    assert.equal(await settled(small), true, 'both fit once the 8000 are back');
  });

  test('a page larger than the whole budget still passes, alone', async () => {
    const gate = createLargePageGate(OPTIONS);
    const huge = await gate.admit(50_000);
    assert.ok(huge !== undefined);
    const next = gate.admit(2000);
    assert.ok(next !== undefined);
    assert.equal(await settled(next), false);
    huge();
    assert.equal(await settled(next), true);
  });

  test('a share comes back after maxHoldMs even if the response never closes', async () => {
    const gate = createLargePageGate({ ...OPTIONS, capacity: 5000, maxHoldMs: 50 });
    await gate.admit(5000);
    const next = gate.admit(5000);
    assert.ok(next !== undefined);
    assert.equal(await settled(next), false);
    await sleep(80);
    assert.equal(await settled(next), true, 'a reader that stopped does not block the others for good');
  });

  test('tells its observer of each large page admitted, with how long it waited', async () => {
    const waits: number[] = [];
    const gate = createLargePageGate({ ...OPTIONS, capacity: 5000, observer: { admitted: (ms) => waits.push(ms) } });
    assert.equal(gate.admit(1000), undefined);
    const first = await gate.admit(5000);
    const second = gate.admit(5000);
    assert.ok(first !== undefined && second !== undefined);
    await sleep(30);
    first();
    (await second)();
    assert.equal(waits.length, 2, 'small pages are not large pages');
    assert.equal(waits[0], 0, 'the first passed at once');
    assert.ok((waits[1] ?? 0) >= 20, `the second waited for the first: ${waits[1]} ms`);
  });
});
