import { isIPv4, isIPv6 } from 'node:net';

/**
 * The subject the brute-force guard counts failures under (one client address, docs/api.md#limits):
 * an IPv4 address as it is, an IPv6 address by its /64. A single IPv6 subscriber is routinely given
 * a whole /64 and can rotate through 2^64 addresses in it, so counting each address alone would let
 * it get around the guard. An IPv4 address written as IPv6 (`::ffff:203.0.113.1`, as a dual-stack
 * socket reports it) is that IPv4 address. Anything else (a Unix socket, an empty address) is its
 * own subject. Both guards, in-process and Redis, count under this one function.
 */
export function clientGroupOf(address: string): string {
  const zoneless = address.split('%', 1)[0] ?? address;
  if (!isIPv6(zoneless)) return address;
  const groups = expandIPv6(zoneless.toLowerCase());
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    const v4 = `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
    if (isIPv4(v4)) return v4;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (checked by the caller), `::` and a trailing IPv4 part expanded. */
function expandIPv6(address: string): number[] {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4 !== null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
}
