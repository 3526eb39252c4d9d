import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * What Linux tells of a process in /proc: CPU time (utime + stime, in clock ticks) and memory
 * (VmRSS, VmHWM: the peak resident set, RssAnon: the heap and stacks, RssFile: pages of mapped
 * files such as the SQLite database under mmap, counted in RSS but owned by the page cache).
 */

function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

const TICKS_PER_SECOND = clockTicksPerSecond();

/** The fields of /proc/PID/stat after the command name, which may itself hold spaces. */
function statFields(pid: number | 'self'): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of a process, in microseconds (resolution: one clock tick, usually 10 ms). */
export function processCpuMicros(pid: number): number {
  const fields = statFields(pid);
  // Fields 14 and 15 of proc(5), counted from 1 with pid and comm, so 11 and 12 here.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / TICKS_PER_SECOND;
}

/** CPU time of this process's children that have exited and been waited for (cutime + cstime). */
export function exitedChildrenCpuMicros(): number {
  const fields = statFields('self');
  return ((Number(fields[13]) + Number(fields[14])) * 1e6) / TICKS_PER_SECOND;
}

export interface MemoryStatus {
  readonly rssKb: number;
  readonly hwmKb: number;
  readonly rssAnonKb: number;
  readonly rssFileKb: number;
}

/** VmRSS, VmHWM, RssAnon and RssFile of a process, in KiB. */
export function processMemory(pid: number): MemoryStatus {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text);
    return match?.[1] === undefined ? 0 : Number(match[1]);
  };
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM'), rssAnonKb: field('RssAnon'), rssFileKb: field('RssFile') };
}

/**
 * Peaks of the memory of a set of processes (summed: a primary and its workers), sampled every
 * `everyMs` until stopped.
 */
export function sampleMemory(pids: () => readonly number[], everyMs = 100) {
  const peak = { rssKb: 0, rssAnonKb: 0, rssFileKb: 0 };
  const take = () => {
    const now = { rssKb: 0, rssAnonKb: 0, rssFileKb: 0 };
    for (const pid of pids()) {
      try {
        const one = processMemory(pid);
        now.rssKb += one.rssKb;
        now.rssAnonKb += one.rssAnonKb;
        now.rssFileKb += one.rssFileKb;
      } catch {
        // The process has exited: it holds nothing now.
      }
    }
    peak.rssKb = Math.max(peak.rssKb, now.rssKb);
    peak.rssAnonKb = Math.max(peak.rssAnonKb, now.rssAnonKb);
    peak.rssFileKb = Math.max(peak.rssFileKb, now.rssFileKb);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop(): { rssKb: number; rssAnonKb: number; rssFileKb: number } {
      clearInterval(timer);
      take();
      return { ...peak };
    },
  };
}

/** The 1-minute load average: other work on the machine skews every figure. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/** The numeric entries of /proc: every process this user may see. */
function allPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** A process and all its descendants (`serve --workers N`: the primary and its workers). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const pid of allPids()) {
    try {
      parents.set(pid, Number(statFields(pid)[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) {
    for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  }
  return tree;
}

/** The processes whose command line (as they set it: PostgreSQL backends do) matches. */
export function pidsWithCommandLine(match: (commandLine: string) => boolean): number[] {
  return allPids().filter((pid) => {
    try {
      return match(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      return false;
    }
  });
}

/** utime + stime summed over processes, in µs; a process that has gone counts nothing. */
export function processesCpuMicros(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += processCpuMicros(pid);
    } catch {
      // Exited: its time is lost (a short window at most).
    }
  }
  return total;
}
