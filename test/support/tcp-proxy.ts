import net from 'node:net';

/**
 * A TCP proxy to put between a client and a store, to cut the link under a running client:
 * - `stall`: bytes stop flowing both ways (held, not lost) and new connections wait: the store
 *   seems hung, or the network silently drops everything;
 * - `refuse`: open connections are closed and new ones closed at once: the store is stopped.
 * `restore()` lets everything flow again (held bytes included).
 * `watchClient`, when given, is asked for an observer of each connection's bytes from the
 * client, in order (what the client sends, as the store receives it).
 */
export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  cut(mode?: 'stall' | 'refuse'): void;
  restore(): void;
  close(): Promise<void>;
}

interface Link {
  readonly client: net.Socket;
  upstream?: net.Socket;
}

export interface TcpProxyOptions {
  readonly watchClient?: () => (chunk: Buffer) => void;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  options: TcpProxyOptions = {},
): Promise<TcpProxy> {
  let mode: 'open' | 'stall' | 'refuse' = 'open';
  const links = new Set<Link>();

  function drop(link: Link): void {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  }

  function connectUpstream(link: Link): void {
    const upstream = net.connect(target.port, target.host);
    link.upstream = upstream;
    const watch = options.watchClient?.();
    // Forwarded by hand, not piped, so that pause() holds the bytes until restore().
    link.client.on('data', (chunk: Buffer) => {
      watch?.(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => link.client.write(chunk));
    upstream.on('error', () => drop(link));
    upstream.on('close', () => drop(link));
    link.client.resume();
  }

  const server = net.createServer((client) => {
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    const link: Link = { client };
    links.add(link);
    client.on('error', () => drop(link));
    client.on('close', () => drop(link));
    client.pause();
    if (mode === 'open') connectUpstream(link);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP port');

  return {
    host: '127.0.0.1',
    port: address.port,
    cut(how = 'stall') {
      mode = how;
      for (const link of links) {
        if (how === 'refuse') drop(link);
        else {
          link.client.pause();
          link.upstream?.pause();
        }
      }
    },
    restore() {
      mode = 'open';
      for (const link of links) {
        if (link.upstream === undefined) connectUpstream(link);
        else {
          link.client.resume();
          link.upstream.resume();
        }
      }
    },
    async close() {
      for (const link of links) drop(link);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
