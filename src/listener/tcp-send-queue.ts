import { readFileSync, readlinkSync } from 'node:fs';

/**
 * What the kernel holds, unacknowledged by the peer, of what this process sent on a TCP socket: the
 * tx_queue column of Linux's /proc/net/tcp and /proc/net/tcp6 (write_seq - snd_una). Once the peer's
 * receive buffer is full it moves only when the client reads: the one place a server sees a slow client
 * take bytes while up to 4 MB of its answer wait in the kernel (docs/reliability.md#figures).
 *
 * Linux only: elsewhere, or when /proc cannot be read, every answer is undefined.
 */

const SOCKET_LINK_RE = /^socket:\[(\d+)\]$/;

/** The inode of the socket behind file descriptor `fd` of this process, or undefined. */
export function socketInode(fd: number): number | undefined {
  if (process.platform !== 'linux' || fd < 0) return undefined;
  try {
    const inode = SOCKET_LINK_RE.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
    return inode === undefined ? undefined : Number(inode);
  } catch {
    return undefined;
  }
}

/**
 * The unacknowledged bytes of the sockets `inodes` of one address family, by inode; a socket
 * missing from the table (closed meanwhile) is missing from the result. One read of the
 * network namespace's table, whatever the number of sockets asked about.
 */
export function unacknowledgedBytes(family: 'IPv4' | 'IPv6', inodes: ReadonlySet<number>): Map<number, number> {
  const found = new Map<number, number>();
  if (process.platform !== 'linux' || inodes.size === 0) return found;
  let table: string;
  try {
    table = readFileSync(family === 'IPv4' ? '/proc/net/tcp' : '/proc/net/tcp6', 'latin1');
  } catch {
    return found;
  }
  // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...",
  // the queues in hexadecimal.
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const inode = Number(fields[9]);
    if (!inodes.has(inode)) continue;
    const txQueue = fields[4]?.split(':')[0];
    if (txQueue !== undefined) found.set(inode, Number.parseInt(txQueue, 16));
  }
  return found;
}
