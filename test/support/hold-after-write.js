// Loaded with `node --import` into a `serve` that a test spawns (serve-signals.ts); plain
// JavaScript because that process runs the build with plain Node. In the primary (a cluster's
// workers inherit the flag and are left alone), right after the process writes to stdout or
// stderr the first chunk containing HOLD_AFTER_WRITE, it stops itself with SIGSTOP: the test
// signals it and then sends SIGCONT, so the signal lands before the process runs one more
// line. That is a process descheduled right after a write, on a busy machine, made certain.
import cluster from 'node:cluster';
import process from 'node:process';

const marker = process.env.HOLD_AFTER_WRITE;

if (marker !== undefined && marker !== '' && cluster.isPrimary) {
  let held = false;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = (chunk, ...rest) => {
      // stdout and stderr are pipes here, written synchronously on Linux: the bytes are out.
      const written = write(chunk, ...rest);
      if (!held && String(chunk).includes(marker)) {
        held = true;
        process.kill(process.pid, 'SIGSTOP');
      }
      return written;
    };
  }
}
