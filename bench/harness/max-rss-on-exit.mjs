// Preloaded into a benchmarked command (`node --import this-file …`): at exit it writes the
// process's peak memory to the file named by MEAL_EXPORT_BENCH_MAX_RSS_FILE, as JSON in KiB:
// `maxRssKb`, the kernel's VmHWM (the peak of everything resident, pages of memory-mapped files
// included: SQLite reads its database through a map, and those pages are the OS's page cache,
// shared and reclaimable), and `peakAnonKb`, the largest RssAnon (the process's own heap and
// stacks) seen by sampling /proc/self/status every 20 ms. Measured from inside, so the
// command itself is not changed for the benchmark. Not getrusage's ru_maxrss: Linux carries it
// across fork and exec, so a command spawned by a large process (the benchmark, late in a full
// run) reported that process's peak (286 MB for every import), while VmHWM starts with the
// command's own address space.
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { setInterval } from 'node:timers';

const file = process.env.MEAL_EXPORT_BENCH_MAX_RSS_FILE;
if (file !== undefined) {
  let peakAnonKb = 0;
  let maxRssKb = 0;
  const sample = () => {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
    peakAnonKb = Math.max(peakAnonKb, kb('RssAnon'));
    maxRssKb = kb('VmHWM');
  };
  setInterval(sample, 20).unref();
  process.on('exit', () => {
    sample();
    writeFileSync(file, `${JSON.stringify({ maxRssKb, peakAnonKb })}\n`);
  });
}
