import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { ROOT } from './processes.js';

/** What the benchmark asks of a client process (bench/harness/held-connections.ts). */
export type HeldClientsCommand =
  | {
      readonly op: 'open';
      readonly host: string;
      readonly port: number;
      readonly caFile: string;
      /** One raw HTTP/1.1 request per connection. */
      readonly requests: readonly string[];
      /** Handshakes in flight at most. */
      readonly concurrency: number;
    }
  | { readonly op: 'status' }
  | { readonly op: 'close' };

export interface HeldClientsStatus {
  /** Requests written (their handshake done). */
  readonly sent: number;
  /** Connections on which the server sent anything: answered, so no longer held. */
  readonly answered: number;
  readonly errors: number;
  readonly closed: number;
  readonly open: number;
  readonly firstError: string | undefined;
  readonly rssKb: number;
}

export interface HeldClients {
  /** Opens every connection, each with its request, and resolves once all are written. */
  open(url: string, caFile: string, requests: readonly string[]): Promise<HeldClientsStatus>;
  status(): Promise<HeldClientsStatus>;
  /** Destroys every connection and ends the client processes. */
  close(): Promise<void>;
}

const SCRIPT = path.join(import.meta.dirname, 'held-connections.ts');

/** Summed over the client processes. */
function sum(statuses: readonly HeldClientsStatus[]): HeldClientsStatus {
  return {
    sent: statuses.reduce((total, s) => total + s.sent, 0),
    answered: statuses.reduce((total, s) => total + s.answered, 0),
    errors: statuses.reduce((total, s) => total + s.errors, 0),
    closed: statuses.reduce((total, s) => total + s.closed, 0),
    open: statuses.reduce((total, s) => total + s.open, 0),
    firstError: statuses.find((s) => s.firstError !== undefined)?.firstError,
    rssKb: statuses.reduce((total, s) => total + s.rssKb, 0),
  };
}

/**
 * Client processes that hold many TLS connections, each with one request in flight: in
 * processes of their own so that their CPU and memory are never the server's or the
 * benchmark's, and split over `processes` so that each stays small. `concurrency`: handshakes
 * in flight per process.
 */
export async function startHeldClients(processes: number, concurrency: number): Promise<HeldClients> {
  const children: ChildProcess[] = [];
  for (let i = 0; i < processes; i += 1) {
    const child = fork(SCRIPT, [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
  }
  await Promise.all(children.map((child) => once(child, 'message')));

  const ask = (child: ChildProcess, command: HeldClientsCommand) => {
    const answer = once(child, 'message') as Promise<[HeldClientsStatus]>;
    child.send(command);
    return answer.then(([status]) => status);
  };
  return {
    async open(url, caFile, requests) {
      const { hostname, port } = new URL(url);
      const share = Math.ceil(requests.length / children.length);
      const statuses = await Promise.all(
        children.map((child, i) =>
          ask(child, {
            op: 'open',
            host: hostname,
            port: Number(port),
            caFile,
            requests: requests.slice(i * share, (i + 1) * share),
            concurrency,
          }),
        ),
      );
      return sum(statuses);
    },
    async status() {
      return sum(await Promise.all(children.map((child) => ask(child, { op: 'status' }))));
    },
    async close() {
      await Promise.all(
        children.map(async (child) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = once(child, 'exit');
          child.send({ op: 'close' });
          await exited;
        }),
      );
    },
  };
}
