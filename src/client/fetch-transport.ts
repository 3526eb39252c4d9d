import { explainPlainHttpFailure, plainHttpRefusal } from './tls-probe.js';
import { DEFAULT_MAX_RESPONSE_BYTES, type HttpTransport, responseTooLarge } from './transport.js';

/** The part of a body stream's reader the transport uses: chunks, and cancel to hang up. */
interface BodyReader {
  read(): Promise<{ done: true; value?: Uint8Array | undefined } | { done: false; value: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

/** The part of the fetch API the client uses (globalThis.fetch, undici's fetch, a test double). */
export type FetchFunction = (
  url: string,
  init: { method: 'GET'; headers: Record<string, string>; signal?: AbortSignal },
) => Promise<{
  status: number;
  headers: { forEach(fn: (value: string, name: string) => void): void };
  /** The body, already decompressed; null when the response has none. */
  body: { getReader(): BodyReader } | null;
}>;

export interface FetchTransportOptions {
  /** The largest body accepted, once decompressed, or as its Content-Length says (default DEFAULT_MAX_RESPONSE_BYTES). */
  readonly maxResponseBytes?: number;
}

/**
 * The body as text, refused as soon as it passes `maxBytes`. Cancelling the stream (rather
 * than reading it to the end) makes fetch drop the connection, so a server cannot keep the
 * client reading. The streaming decoder gives what text() gives, whatever the chunks.
 */
async function readCapped(reader: BodyReader, declaredLength: string | undefined, maxBytes: number): Promise<string> {
  const refuse = async (): Promise<Error> => {
    const error = responseTooLarge(maxBytes);
    // The cancel's own outcome changes nothing: the body is refused either way.
    await reader.cancel(error).catch(() => undefined);
    return error;
  };
  if (Number(declaredLength) > maxBytes) throw await refuse();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let received = 0;
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    received += chunk.value.byteLength;
    if (received > maxBytes) throw await refuse();
    parts.push(decoder.decode(chunk.value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/**
 * A transport over fetch: it decompresses by itself, so no Accept-Encoding is set here. It
 * sets no timeout of its own, so a held request (`holdMs`) needs nothing more: the fetch's own
 * timeouts must only allow its wait (undici's default, 300 s before the headers, does).
 */
export function createFetchTransport(fetchFn: FetchFunction, options: FetchTransportOptions = {}): HttpTransport {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return {
    async get(url, headers, signal) {
      const init = { method: 'GET' as const, headers: { ...headers }, ...(signal === undefined ? {} : { signal }) };
      const response = await fetchFn(url.href, init).catch(async (error: unknown) => {
        // A hang-up on an http:// URL may be an HTTPS server refusing plain HTTP.
        throw signal?.aborted === true ? error : await explainPlainHttpFailure(url, error);
      });
      const refused = await plainHttpRefusal(url, response.status);
      if (refused !== undefined) throw refused;
      const received: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        received[name.toLowerCase()] = value;
      });
      const text =
        response.body === null ? '' : await readCapped(response.body.getReader(), received['content-length'], maxBytes);
      return { status: response.status, headers: received, text };
    },
    close() {},
  };
}
