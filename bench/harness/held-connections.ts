import { readFileSync } from 'node:fs';
import tls, { type TLSSocket } from 'node:tls';
import type { HeldClientsCommand, HeldClientsStatus } from './held-clients.js';

/**
 * A client process of the held-connections benchmark (bench/harness/held-clients.ts starts
 * it): opens one raw TLS connection per request it is given (no HTTP agent, no keep-alive
 * pool), at most `concurrency` handshakes at a time so that none waits near the server's
 * 10 s handshake bound, writes the request once its handshake is done, and keeps the
 * connection. A byte from the server is an answer: counted, since a held request gets none
 * until its wait ends. Driven over IPC:
 *   node --import tsx bench/harness/held-connections.ts
 */

const sockets: TLSSocket[] = [];
const status = { sent: 0, answered: 0, errors: 0, closed: 0, firstError: undefined as string | undefined };

function report(): HeldClientsStatus {
  return { ...status, open: sockets.length - status.closed, rssKb: process.memoryUsage().rss / 1024 };
}

function openOne(host: string, port: number, ca: string, request: string): Promise<void> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = () => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
    const socket = tls.connect({ host, port, ca }, () => {
      socket.write(request, () => {
        status.sent += 1;
        settle();
      });
    });
    sockets.push(socket);
    let answered = false;
    socket.on('data', () => {
      if (!answered) status.answered += 1;
      answered = true;
    });
    socket.on('error', (error) => {
      status.errors += 1;
      status.firstError ??= error.message;
      settle();
    });
    socket.on('close', () => {
      status.closed += 1;
      settle();
    });
  });
}

async function open(command: Extract<HeldClientsCommand, { op: 'open' }>): Promise<void> {
  const ca = readFileSync(command.caFile, 'utf8');
  let next = 0;
  const worker = async () => {
    while (next < command.requests.length) {
      const request = command.requests[next] ?? '';
      next += 1;
      await openOne(command.host, command.port, ca, request);
    }
  };
  await Promise.all(Array.from({ length: command.concurrency }, worker));
}

process.on('message', (message: HeldClientsCommand) => {
  const reply = () => process.send?.(report());
  if (message.op === 'open') void open(message).then(reply);
  else if (message.op === 'status') reply();
  else {
    for (const socket of sockets) socket.destroy();
    reply();
    setImmediate(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.(report());
