import { promisify } from 'node:util';
import { constants as zlibConstants, brotliCompress, gzip } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';

/**
 * When and how bodies are compressed (docs/api.md#the-rest-of-the-transport): over 1 KiB (1025
 * bytes and more), when Accept-Encoding asks for br or gzip. Brotli at quality 4 compresses close
 * to gzip's best for a fraction of quality 11's CPU. app.ts gives the same settings to
 * @fastify/compress for the routes Fastify answers; http/meals-endpoint.ts uses this module.
 */
export const COMPRESSION_THRESHOLD = 1025;
export const ENCODINGS: Array<'br' | 'gzip'> = ['br', 'gzip'];
export const BROTLI_OPTIONS = { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } };

export type Encoding = (typeof ENCODINGS)[number];

const negotiator = new Negotiator({ supportedValues: ENCODINGS });
// As @fastify/compress reads the header: `*` and `x-gzip` mean gzip (RFC 9110 section 12.5.3).
const GZIP_ALIASES = /\*|x-gzip/gu;

/** The encoding to send a body in, or undefined for as it is (nothing asked, identity, or nothing we offer). */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  return negotiator.negotiate(acceptEncoding.toLowerCase().replace(GZIP_ALIASES, 'gzip')) ?? undefined;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Compresses on libuv's thread pool, so a large page does not hold up the event loop. */
export function compressBody(body: Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br' ? brotliAsync(body, BROTLI_OPTIONS) : gzipAsync(body);
}
