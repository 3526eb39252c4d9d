import { processMemory } from '../harness/proc-stats.js';
import { loadRow, ratio } from '../harness/results.js';
import { firstPage, HEAVY_USER, type Scenario } from '../harness/scenario.js';
import { startRealServer } from '../harness/servers.js';

/**
 * Memory: peak resident set of a fresh real server under 50 concurrent 5000-meal requests
 * (target ≤ 250 MB). RSS counts the pages of the memory-mapped database file too (RssFile),
 * which belong to the page cache and are given back under pressure: reported apart from the
 * process's own memory (RssAnon).
 */
export const memory: Scenario = {
  name: 'memory',
  question: 'How much memory does the server hold under 50 concurrent 5000-meal requests?',
  async run(context) {
    const connections = context.options.memoryConnections;
    const server = await startRealServer(context.big.db);
    try {
      const key = await context.createKey(context.big.db, HEAVY_USER);
      const request = firstPage(5000);
      const startRss = processMemory(server.pid).rssKb / 1024;
      const real = await context.measure(server, request, key, { connections });
      const peak = processMemory(server.pid);
      const ceilingRow = context.rows.find((row) => row.name === 'page-5000');
      return [
        {
          ...loadRow(`memory-5000x${connections}`, real, undefined, {
            connections,
            vm_hwm_mb: Math.round((peak.hwmKb / 1024) * 10) / 10,
            rss_at_start_mb: Math.round(startRss * 10) / 10,
            user: HEAVY_USER,
          }),
          rss_mb: Math.round((peak.hwmKb / 1024) * 10) / 10,
          ceiling_rps: ceilingRow?.ceiling_rps ?? null,
          ratio: typeof ceilingRow?.ceiling_rps === 'number' ? ratio(real.rps, ceilingRow.ceiling_rps) : null,
          ceiling_from: 'page-5000 (10 connections)',
        },
      ];
    } finally {
      await server.stop();
    }
  },
};
