import { BlockList, isIP } from 'node:net';

/**
 * The client address behind trusted proxies (`serve --trust-proxy`): otherwise every client behind a
 * proxy is one address to the brute-force guard (docs/api.md#limits), and one failing 20 times gets
 * every other client without a valid key a 429. Each proxy appends its peer to `X-Forwarded-For`; only
 * what trusted proxies appended is fact, anything to its left the client may have written. So walk from
 * the peer leftwards past trusted addresses to the first untrusted one. Without trusted proxies (the
 * default) the header is ignored: the peer is the client.
 */
export interface TrustedProxies {
  /** The addresses and networks as given, for the start-up log. */
  readonly list: readonly string[];
  has(address: string): boolean;
}

const MAPPED_IPV4_RE = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** An address as net.BlockList checks it: an IPv4-mapped IPv6 address is its IPv4 one. */
function plainAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const mapped = MAPPED_IPV4_RE.exec(address)?.[1];
  const text = mapped ?? address;
  const version = isIP(text);
  return version === 0 ? undefined : { address: text, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * `--trust-proxy`: addresses and CIDR networks, comma-separated (`127.0.0.1,10.0.0.0/8,fd00::/8`).
 * Returns the reason when an entry is neither.
 */
export function parseTrustedProxies(text: string): TrustedProxies | { readonly error: string } {
  const blocks = new BlockList();
  const list = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (list.length === 0) return { error: 'give at least one address or network, such as 127.0.0.1 or 10.0.0.0/8' };
  for (const entry of list) {
    const [address = '', prefix, extra] = entry.split('/');
    const plain = plainAddress(address);
    const bits = prefix === undefined ? undefined : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    const maxBits = plain?.family === 'ipv4' ? 32 : 128;
    if (plain === undefined || extra !== undefined || (bits !== undefined && !(bits <= maxBits))) {
      return { error: `"${entry}" is not an IP address or a CIDR network such as 10.0.0.0/8` };
    }
    if (bits === undefined) blocks.addAddress(plain.address, plain.family);
    else blocks.addSubnet(plain.address, bits, plain.family);
  }
  return {
    list,
    has(address) {
      const plain = plainAddress(address);
      return plain !== undefined && blocks.check(plain.address, plain.family);
    },
  };
}

/** An X-Forwarded-For entry as an address: `[v6]:port` and `v4:port` as some proxies write them. */
function forwardedAddress(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry)?.[1];
  if (bracketed !== undefined) return bracketed;
  const withPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry)?.[1];
  return withPort ?? entry;
}

/**
 * The client's address: `peer` (the connection's) unless it is a trusted proxy, then the
 * rightmost X-Forwarded-For entry that is not. An entry that is not an address stops the walk
 * at the last trusted hop: only a client writes such an entry, and it must not choose its group.
 */
export function clientAddressOf(
  peer: string,
  /** The header as Node gives it: several X-Forwarded-For lines joined with commas, in order. */
  forwardedFor: string | readonly string[] | undefined,
  trusted: TrustedProxies | undefined,
): string {
  if (trusted === undefined || forwardedFor === undefined || !trusted.has(peer)) return peer;
  const hops = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',');
  let address = peer;
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = forwardedAddress((hops[i] ?? '').trim());
    if (plainAddress(hop) === undefined) return address;
    address = hop;
    if (!trusted.has(hop)) return hop;
  }
  return address;
}
