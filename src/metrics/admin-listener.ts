import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { CliError } from '../errors.js';
import { describeListenFailure } from '../listener/listener.js';

/** One scrape: the Prometheus text of every metric, and its content type. */
export type Scrape = () => Promise<{ readonly contentType: string; readonly text: string }>;

export interface AdminListener {
  /** `http://127.0.0.1:PORT`, with the port actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

const ADMIN_HOST = '127.0.0.1';

/**
 * The admin listener (docs/operations.md#metrics): `GET /metrics` in Prometheus text format, plain
 * HTTP on 127.0.0.1 only, so that what the service counts is seen from the host, never from
 * the network the public port faces. Port 0 takes a free port; the bound address is logged as
 * `{"url":"http://127.0.0.1:PORT","msg":"admin listening"}` (stdout carries only the public
 * `listening on` line). A port that cannot be bound is the command's one-line failure.
 */
export async function startAdminListener(port: number, scrape: Scrape, log: FastifyBaseLogger): Promise<AdminListener> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: GET /metrics\n');
      return;
    }
    scrape().then(
      ({ contentType, text }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        log.warn({ err }, 'could not collect the metrics');
        response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    const refused = (error: Error) => {
      const described = describeListenFailure(error, port);
      reject(
        described instanceof CliError
          ? described
          : new CliError(`cannot serve /metrics on the admin port: ${error.message}`, { cause: error }),
      );
    };
    server.once('error', refused);
    server.listen({ host: ADMIN_HOST, port, exclusive: true }, () => {
      server.off('error', refused);
      resolve();
    });
  });
  const url = `http://${ADMIN_HOST}:${(server.address() as AddressInfo).port}`;
  log.info({ url }, 'admin listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
