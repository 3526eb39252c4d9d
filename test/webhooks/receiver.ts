/** A webhook receiver for the tests: a real HTTPS server on 127.0.0.1, port 0, with a certificate made here. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { cliJson } from '../support/cli.js';

export interface ReceivedCall {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Receiver {
  readonly port: number;
  /** `https://127.0.0.1:<port>/hook` */
  readonly url: string;
  readonly calls: ReceivedCall[];
  close(): Promise<void>;
}

export type Answer = (response: ServerResponse, call: ReceivedCall) => void;

export interface TestCertificate {
  readonly cert: string;
  readonly key: string;
}

/**
 * A self-signed certificate naming localhost, 127.0.0.1 and ::1 (or the names given), with
 * `commonName` as its subject (what a PostgreSQL server matches a client certificate's user by).
 */
export async function makeCertificate(
  names: ReadonlyArray<{ type: 'dns' | 'ip'; value: string }> = [
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '127.0.0.1' },
    { type: 'ip', value: '::1' },
  ],
  commonName = 'webhook receiver',
): Promise<TestCertificate> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 3_600_000),
    notAfterDate: new Date(now + 86_400_000),
    extensions: [
      {
        name: 'subjectAltName',
        altNames: names.map((name) =>
          name.type === 'ip' ? ({ type: 7, ip: name.value } as const) : ({ type: 2, value: name.value } as const),
        ),
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

export async function startReceiver(certificate: TestCertificate, answer: Answer): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const server = createServer(certificate, (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      calls.push(call);
      answer(response, call);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `https://127.0.0.1:${port}/hook`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `webhooks create` of the receiver's loopback URL by name (`localhost`), as a user would: the endpoint's id. */
export async function createLoopbackEndpoint(receiver: Receiver, userId: string, db: string): Promise<string> {
  const url = `https://localhost:${receiver.port}/hook`;
  const created = await cliJson<{ id: string }>(['webhooks', 'create', '--user', userId, '--url', url, '--db', db]);
  return created.id;
}
