import { connect } from 'node:net';

/** How long the check waits: a page on this host or near it accepts a connection in milliseconds. */
const CHECK_TIMEOUT_MS = 1000;

/**
 * Whether nothing listens at an origin's host and port now. Only a refused connection says so:
 * a name that does not resolve, a timeout or any other failure says nothing (a page behind a
 * proxy may be out of this machine's reach), and neither does a connection that opens.
 */
export function nothingListensAt(origin: string): Promise<boolean> {
  const url = new URL(origin);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port });
    const settle = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(CHECK_TIMEOUT_MS, () => settle(false));
    socket.once('connect', () => settle(false));
    socket.once('error', (error: NodeJS.ErrnoException) => settle(error.code === 'ECONNREFUSED'));
  });
}
