import zlib from 'node:zlib';

/** One HTTP/1.1 response read off a raw connection. */
export interface RawResponse {
  readonly status: number;
  /** Lower-cased names; a repeated header keeps its values joined by ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, decompressed. */
  readonly body: Buffer;
}

/**
 * Reads the responses of one connection in order, as a keep-alive client must: each framed by
 * Content-Length or chunked encoding, none for a HEAD, interim 1xx answers skipped. `take`
 * returns the next complete response in the bytes so far, or undefined until it has arrived.
 */
export function createResponseReader() {
  let buffered: Buffer = Buffer.alloc(0);
  return {
    push(chunk: Buffer): void {
      buffered = Buffer.concat([buffered, chunk]);
    },
    /** `closed`: the server has closed, so a body without framing ends here. */
    take(method: string, closed: boolean): RawResponse | undefined {
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return undefined;
        const [statusLine = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          if (colon <= 0) continue;
          const name = line.slice(0, colon).trim().toLowerCase();
          const value = line.slice(colon + 1).trim();
          headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
        }
        const rest = buffered.subarray(end + 4);
        if (status >= 100 && status < 200) {
          buffered = rest;
          continue;
        }
        const framed = readBody(
          rest,
          method === 'HEAD' ? '0' : headers['content-length'],
          headers['transfer-encoding'],
          closed,
        );
        if (framed === undefined) return undefined;
        buffered = framed.rest;
        return { status, headers, body: decoded(framed.body, headers['content-encoding']) };
      }
    },
  };
}

function readBody(
  bytes: Buffer,
  contentLength: string | undefined,
  transferEncoding: string | undefined,
  closed: boolean,
): { body: Buffer; rest: Buffer } | undefined {
  if (transferEncoding?.toLowerCase() === 'chunked') {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = bytes.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) {
        const end = bytes.indexOf('\r\n', lineEnd + 2);
        return end < 0 ? undefined : { body: Buffer.concat(parts), rest: bytes.subarray(end + 2) };
      }
      if (bytes.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  if (contentLength !== undefined) {
    const length = Number(contentLength);
    return bytes.length < length ? undefined : { body: bytes.subarray(0, length), rest: bytes.subarray(length) };
  }
  return closed ? { body: bytes, rest: Buffer.alloc(0) } : undefined;
}

function decoded(body: Buffer, encoding: string | undefined): Buffer {
  if (body.length === 0) return body;
  if (encoding === 'gzip') return zlib.gunzipSync(body);
  if (encoding === 'br') return zlib.brotliDecompressSync(body);
  return body;
}
