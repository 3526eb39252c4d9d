import { readFileSync } from 'node:fs';

/**
 * What the kernel knows of a server process (Linux, from /proc): what a test cannot see from
 * the client side, such as a connection the server closed behind bytes its paused client
 * never read.
 */

/** Why these probes cannot run here, or undefined on Linux. */
export const PROC_SKIP = process.platform === 'linux' ? undefined : 'reads /proc (Linux only)';

/** The process's resident memory in bytes. */
export function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) * 1024;
}

/** The established TCP connections on 127.0.0.1:`port`, server side. */
export function serverConnections(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .filter((line) => {
      const [, localAddress, , state] = line.trim().split(/\s+/);
      return localAddress === local && state === '01';
    }).length;
}
