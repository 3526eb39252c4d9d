/**
 * `next` of a sign-in link (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links): where the
 * link lands once the person is signed in, such as a Connect authorization request. A path of
 * the app page only, so that a link never sends anyone to another site: one leading `/`, no
 * scheme, host or backslash, at most 2048 characters.
 */
export const MAX_NEXT_LENGTH = 2048;

export function pagePathFault(next: string): string | undefined {
  const fault =
    'next must be a path of the app page: one leading "/", no scheme, host or backslash, at most 2048 characters.';
  if (next.length === 0 || next.length > MAX_NEXT_LENGTH) return fault;
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return fault;
  // No control characters, and nothing a browser would read as another origin.
  if ([...next].some((c) => c <= '\u001f' || c === '\u007f') || !URL.canParse(next, 'https://page.invalid'))
    return fault;
  return new URL(next, 'https://page.invalid').origin === 'https://page.invalid' ? undefined : fault;
}
