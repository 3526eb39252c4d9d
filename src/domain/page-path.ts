/**
 * `next` of a sign-in link (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links): where the
 * link lands once the person is signed in, such as a Connect authorization request. A path of
 * the app page only, so that a link never sends anyone to another site: one leading `/`, no
 * scheme, host or backslash, at most 2048 printable ASCII characters (the rest percent-encoded,
 * as a Location header carries it).
 */
export const MAX_NEXT_LENGTH = 2048;

const PRINTABLE_ASCII_RE = /^[\x21-\x7e]+$/;
const SOME_ORIGIN = 'https://page.invalid';

export function pagePathFault(next: string): string | undefined {
  const fault =
    'next must be a path of the app page: one leading "/", no scheme, host or backslash, at most 2048 printable ASCII characters.';
  if (next.length === 0 || next.length > MAX_NEXT_LENGTH || !PRINTABLE_ASCII_RE.test(next)) return fault;
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return fault;
  // Nothing a browser would read as another origin.
  if (!URL.canParse(next, SOME_ORIGIN)) return fault;
  return new URL(next, SOME_ORIGIN).origin === SOME_ORIGIN ? undefined : fault;
}
