import { readdirSync } from 'node:fs';
import { processMemory } from '../bench/harness/proc-stats.js';

/** What /proc says of one instance's process at a moment: resident memory and open descriptors. */
export interface ProcessSample {
  readonly pid: number;
  readonly rssKb: number;
  readonly openFiles: number;
}

/** VmRSS (/proc/PID/status) and the entries of /proc/PID/fd; undefined when the process is gone. */
export function sampleProcess(pid: number | undefined): ProcessSample | undefined {
  if (pid === undefined) return undefined;
  try {
    return { pid, rssKb: processMemory(pid).rssKb, openFiles: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return undefined;
  }
}
