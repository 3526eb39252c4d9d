// Preloaded into a benchmarked command (`node --import this-file …`): at exit it writes the
// process's peak memory to the file named by MEAL_EXPORT_BENCH_MAX_RSS_FILE, as JSON in KiB:
// `maxRssKb`, getrusage's ru_maxrss (everything resident, pages of memory-mapped files
// included: SQLite reads its database through a map, and those pages are the OS's page cache,
// shared and reclaimable), and `peakAnonKb`, the largest RssAnon (the process's own heap and
// stacks) seen by sampling /proc/self/status every 20 ms. Measured from inside, so the
// command itself is not changed for the benchmark.
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { setInterval } from 'node:timers';

const file = process.env.MEAL_EXPORT_BENCH_MAX_RSS_FILE;
if (file !== undefined) {
  let peakAnonKb = 0;
  const sample = () => {
    const match = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match !== null) peakAnonKb = Math.max(peakAnonKb, Number(match[1]));
  };
  setInterval(sample, 20).unref();
  process.on('exit', () => {
    sample();
    writeFileSync(file, `${JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, peakAnonKb })}\n`);
  });
}
