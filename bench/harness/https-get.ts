import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';

export interface FetchedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * One GET over TLS, trusting only the benchmark's certificate: on a connection of its own, or
 * on `agent`'s (keep-alive: no handshake in the request's time once the connection is open).
 */
export function httpsGet(
  url: string,
  ca: string,
  headers: Readonly<Record<string, string>> = {},
  agent: https.Agent | false = false,
): Promise<FetchedResponse> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { ca, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.on('error', reject);
    request.setTimeout(60_000, () => request.destroy(new Error(`GET ${url}: no answer within 60 s`)));
  });
}

/** GET that must answer 200 with JSON; returns the response and the parsed body. */
export async function getJson<T>(url: string, ca: string, headers: Readonly<Record<string, string>>) {
  const response = await httpsGet(url, ca, headers);
  if (response.status !== 200)
    throw new Error(`GET ${url}: ${response.status} ${response.body.toString().slice(0, 300)}`);
  return { response, json: JSON.parse(response.body.toString('utf8')) as T };
}
