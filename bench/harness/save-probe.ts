import { openStorage } from '../../src/storage/open-storage.js';
import { plainMeal } from '../../test/support/contract.js';

/**
 * A writer beside the erasure benchmark (bench/erasure.ts), in a process of its own as another
 * instance or another request's would be: single-meal saves (the host API PUT's one write,
 * storage.writes.saveMeal) of users of its own, one every 5 ms, each timed. When its stdin
 * closes it writes one JSON array on stdout: `[startedAt epoch ms, took ms]` per save.
 *
 *   node --import tsx bench/harness/save-probe.ts STORE
 */
const storage = await openStorage(process.argv[2] ?? '');
const saves: [number, number][] = [];
let open = true;
process.stdin.on('close', () => {
  open = false;
});
process.stdin.resume();
for (let n = 0; open; n += 1) {
  const startedAt = Date.now();
  const start = performance.now();
  await storage.writes.saveMeal(`probe-${n % 8}`, plainMeal(`probe-${process.pid}-${n}`), startedAt);
  saves.push([startedAt, performance.now() - start]);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
await storage.close();
process.stdout.write(JSON.stringify(saves));
