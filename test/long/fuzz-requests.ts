import type { SeededRandom } from '../../src/domain/seeded-random.js';

/**
 * Malformed (and some well-formed) HTTP/1.1 requests for the fuzz run
 * (docs/reliability.md#every-answer-is-a-documented-one): request lines, methods, paths,
 * percent-encoding, headers, sizes, encodings, with valid and invalid keys. Every request is
 * complete, so the server always has all it needs to answer.
 */
export interface FuzzRequest {
  readonly bytes: Buffer;
  readonly method: string;
  /** Framing the server may read differently from us (a body, odd line ends): sent on its own connection. */
  readonly ownConnection: boolean;
  /** What it was, to reproduce a failure. */
  readonly label: string;
}

export interface FuzzKeys {
  readonly valid: string;
  /** Well-formed keys the server does not know, and keys sent where no key belongs. */
  readonly strays: readonly string[];
}

const METHODS = [
  'GET',
  'GET',
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'CONNECT',
  'FOO',
  'get',
  'PROPFIND',
  'M-SEARCH',
];
const PATHS = [
  '/v1/meals',
  '/v1/meals',
  '/v1/meals',
  '/healthz',
  '/readyz',
  '/v1/openapi.json',
  '/',
  '/v1/meal',
  '/v1/meals/',
  '/V1/MEALS',
  '/v1//meals',
  '/metrics',
  '*',
  'http://x/v1/meals',
  '/v1/me%61ls',
  '/%ZZ',
  '/%',
  '/%E0%A4%A',
  '/%C0%AF',
  '/..%2f..%2fetc/passwd',
  '/v1/meals;x',
  '/\u00e9',
  '//',
];
const DATES = [
  '2025-01-01',
  '2025-01-01T00:00:00Z',
  '2025-02-30',
  '',
  '%ZZ',
  '2025-01-01T00:00:00+01:00',
  '2025-01-01T00:00:00%2B01:00',
  '2025-01-01T00:00:00.123456789Z',
  '9999-12-31',
  '0000-01-01',
  'yesterday',
  '2025-13-01',
  '%E0%A4%A8',
];
const LIMITS = [
  '1',
  '5000',
  '5001',
  '0',
  '-1',
  '+5',
  '1.5',
  '1e3',
  'abc',
  '',
  '%31',
  '0005',
  '%ZZ',
  '99999999999999999999',
];
const BOOLS = ['true', 'false', 'TRUE', '1', '', '%74rue', '%ZZ'];
const JUNK = [
  '%',
  '%Z',
  '%ZZ',
  '%00',
  '%FF',
  '%E2%82',
  '%%',
  '&&',
  '==',
  '+',
  ' ',
  '\u00e9',
  '%2526',
  '#frag',
  ';',
  '\\',
];
const EXPECTS = ['100-continue', 'the-unexpected', '', '200-ok'];
const ENCODINGS = ['gzip', 'br', 'gzip, br', 'identity', 'deflate', '*', 'x-unknown;q=oops', 'gzip;q=0'];

function queryOf(random: SeededRandom, keys: FuzzKeys): string {
  const parts: string[] = [];
  const count = random.int(6);
  for (let i = 0; i < count; i += 1) {
    switch (random.int(8)) {
      case 0:
      case 1:
        parts.push(`lastModifiedSince=${random.pick(DATES)}`);
        break;
      case 2:
        parts.push(`limit=${random.pick(LIMITS)}`);
        break;
      case 3:
        parts.push(`includeDeleted=${random.pick(BOOLS)}`);
        break;
      case 4:
        parts.push(`cursor=${random.pick(['AQAAAAAAAAAA', '', '%ZZ', 'not-a-cursor', 'A'.repeat(100)])}`);
        break;
      case 5:
        parts.push(
          random.pick([`api_key=${keys.valid}`, keys.valid.replace('_', '%5F'), `${random.pick(keys.strays)}=1`]),
        );
        break;
      case 6:
        parts.push(`${random.pick(['limt', 'x', '', '%ZZ'])}=${random.pick(JUNK)}`);
        break;
      default:
        parts.push(random.pick(JUNK));
    }
  }
  return parts.length === 0 ? '' : `?${parts.join(random.chance(0.9) ? '&' : random.pick([';', '&&', '?']))}`;
}

function targetOf(random: SeededRandom, keys: FuzzKeys): string {
  let target = random.pick(PATHS);
  if (random.chance(0.1)) target = `${target}/${random.pick([keys.valid, ...keys.strays])}`;
  if (random.chance(0.1)) target = `${target}${random.pick(JUNK)}`;
  target += queryOf(random, keys);
  // Sizes around the contract's 8 KiB and past the parser's 64 KiB.
  if (random.chance(0.05)) {
    const length = random.pick([8100, 8192, 8193, 9 * 1024, 20 * 1024, 70 * 1024]);
    target += `${target.includes('?') ? '&' : '?'}pad=${'a'.repeat(Math.max(0, length - target.length - 5))}`;
  }
  return target;
}

function authorizationOf(random: SeededRandom, keys: FuzzKeys): string | undefined {
  switch (random.int(9)) {
    case 0:
      return undefined;
    case 1:
    case 2:
    case 3:
      return `Bearer ${keys.valid}`;
    case 4:
      return `Bearer ${random.pick(keys.strays)}`;
    case 5:
      return random.pick([
        'Bearer',
        'Bearer ',
        'bearer  x',
        `Basic ${Buffer.from(`u:${keys.valid}`).toString('base64')}`,
        keys.valid,
      ]);
    case 6:
      return `Bearer ${keys.valid.slice(0, -1)}${keys.valid.endsWith('A') ? 'B' : 'A'}`;
    case 7:
      return `Bearer ${keys.valid}\u00e9`;
    default:
      return `Bearer ${'x'.repeat(random.pick([10, 1000, 17 * 1024]))}`;
  }
}

/** One request, from the seeded generator. */
export function fuzzRequest(random: SeededRandom, keys: FuzzKeys): FuzzRequest {
  const method = random.pick(METHODS);
  const target = targetOf(random, keys);
  const version = random.chance(0.9)
    ? 'HTTP/1.1'
    : random.pick(['HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 ', 'http/1.1', 'HTTP/1']);
  const headers: string[] = [];
  let ownConnection = false;
  if (random.chance(0.93)) headers.push(`Host: ${random.pick(['localhost', 'x', '', '127.0.0.1:8443', 'a b'])}`);
  if (random.chance(0.03)) headers.push('Host: second');
  const authorization = authorizationOf(random, keys);
  if (authorization !== undefined) headers.push(`Authorization: ${authorization}`);
  if (random.chance(0.05)) headers.push(`Authorization: Bearer ${random.pick(keys.strays)}`);
  if (random.chance(0.08)) headers.push(`Origin: ${random.pick(['https://app.example', 'null', ''])}`);
  if (random.chance(0.08)) headers.push(`Expect: ${random.pick(EXPECTS)}`);
  if (random.chance(0.2)) headers.push(`Accept-Encoding: ${random.pick(ENCODINGS)}`);
  if (random.chance(0.05)) headers.push(`X-Pad: ${'p'.repeat(random.pick([15 * 1024, 17 * 1024, 70 * 1024]))}`);
  if (random.chance(0.03)) {
    const count = random.pick([500, 1100, 2000, 3000]);
    for (let i = 0; i < count; i += 1) headers.push(`x-h${i}: v`);
    if (random.chance(0.5))
      headers.push(random.chance(0.5) ? 'Origin: https://late.example' : `Authorization: Bearer ${keys.valid}`);
  }
  if (random.chance(0.05)) {
    headers.push(
      random.pick([
        'X-Bad\u0000: 1',
        'X Space: 1',
        ': empty',
        'NoColon',
        'X-Fold: a\r\n folded',
        'X-Latin: caf\u00e9',
        'X-Ctl: a\u0001b',
      ]),
    );
    ownConnection = true;
  }
  let body = '';
  if (random.chance(0.08)) {
    ownConnection = true;
    switch (random.int(5)) {
      case 0:
        body = '{"a":1}';
        headers.push(`Content-Length: ${body.length}`, 'Content-Type: application/json');
        break;
      case 1:
        headers.push(`Content-Length: ${random.pick(['abc', '-1', '1, 2', '99999999999999999999'])}`);
        break;
      case 2:
        body = '5\r\nhello\r\n0\r\n\r\n';
        headers.push('Transfer-Encoding: chunked');
        break;
      case 3:
        body = 'zz\r\nhello\r\n0\r\n\r\n';
        headers.push('Transfer-Encoding: chunked');
        break;
      default:
        headers.push('Transfer-Encoding: gzip, chunked', 'Content-Length: 3');
        body = '0\r\n\r\n';
    }
  }
  const connectionClose = random.chance(0.1);
  if (connectionClose) headers.push('Connection: close');
  const eol = random.chance(0.03) ? '\n' : '\r\n';
  if (eol === '\n' || version !== 'HTTP/1.1' || connectionClose) ownConnection = true;
  const head = `${method} ${target} ${version}${eol}${headers.map((h) => `${h}${eol}`).join('')}${eol}`;
  const label = `${method} ${target.slice(0, 120)} ${version} [${headers.length} headers${body === '' ? '' : ', body'}]`;
  // Latin-1 carries the odd bytes (é, controls) as single bytes, as a raw client would send them.
  return { bytes: Buffer.from(`${head}${body}`, 'latin1'), method, ownConnection, label };
}
