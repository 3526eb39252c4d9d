import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchContext } from '../harness/context.js';
import { DATA_DIR } from '../harness/datasets.js';
import { startServerProcess } from '../harness/processes.js';
import { loadRow, ratio } from '../harness/results.js';
import { firstPage, HEAVY_USER, type MealPageBody, type Scenario } from '../harness/scenario.js';
import { ensureNaiveStore } from '../naive/naive-store.js';

const NAIVE_SERVER = path.join(import.meta.dirname, '..', 'naive', 'naive-server.ts');

/** The real server's figure for the same page: measured by an earlier scenario, else now. */
async function realFigure(context: BenchContext, name: string, request: string, key: string) {
  const row = context.rows.find((r) => r.name === name);
  if (row !== undefined && typeof row.rps === 'number' && typeof row.cpu_us_per_req === 'number') {
    return { rps: row.rps, cpuUsPerReq: row.cpu_us_per_req };
  }
  return context.measure(context.real, request, key);
}

/**
 * Naive: the same pages served by the naive design (one column per field, rows turned into
 * objects, JSON.stringify), from the same seeded meals, on the same Fastify + TLS stack.
 * Target: the real server ≥ 5 × the naive one on 5000-meal pages.
 */
export const naive: Scenario = {
  name: 'naive',
  question: 'How much faster is the clustered JSON layout than the naive design?',
  async run(context) {
    const store = ensureNaiveStore(context.big, context.log);
    const key = await context.createKey(context.big.db, HEAVY_USER);
    const scratch = path.join(DATA_DIR, 'scratch');
    mkdirSync(scratch, { recursive: true });
    const keysFile = path.join(scratch, 'naive-keys.json');
    writeFileSync(keysFile, JSON.stringify({ [createHash('sha256').update(key).digest('hex')]: HEAVY_USER }));
    const server = await startServerProcess('naive', [
      '--import',
      'tsx',
      NAIVE_SERVER,
      '--db',
      store,
      '--cert',
      context.certificate.certFile,
      '--key',
      context.certificate.keyFile,
      '--keys',
      keysFile,
    ]);
    try {
      const rows = [];
      for (const [limit, realName] of [
        [5000, 'page-5000'],
        [100, 'page-100'],
      ] as const) {
        const request = firstPage(limit);
        // Same meals, same bytes for each meal: only the layout and the serialisation differ.
        const fromNaive = await context.fetchJson<MealPageBody>(server, request, key);
        const fromReal = await context.fetchJson<MealPageBody>(context.real, request, key);
        assert.deepEqual(fromNaive.meals, fromReal.meals, `the naive server's ${limit}-meal page differs`);
        const measured = await context.measure(server, request, key);
        const real = await realFigure(context, realName, request, key);
        const ceiling = context.rows.find((r) => r.name === realName)?.ceiling_rps;
        rows.push({
          ...loadRow(`naive-${realName}`, measured, undefined, { meals_per_response: limit }),
          ceiling_rps: typeof ceiling === 'number' ? ceiling : null,
          ratio: typeof ceiling === 'number' ? ratio(measured.rps, ceiling) : null,
          real_rps: real.rps,
          real_vs_naive: ratio(real.rps, measured.rps),
          real_vs_naive_cpu: ratio(measured.cpuUsPerReq, real.cpuUsPerReq),
        });
      }
      return rows;
    } finally {
      await server.stop();
    }
  },
};
