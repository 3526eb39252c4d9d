/**
 * Where a webhook call may go (docs/webhooks.md#where-calls-may-go): public unicast addresses only
 * (plus loopback and private ones under `--webhook-allow-private`), so that a user's URL cannot
 * make the service call its own loopback, the operator's network or a cloud metadata address. Checked on the address the connection is made to, after resolution, so that
 * a name resolving to a private address (or re-resolving to one, DNS rebinding) is refused too.
 */
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { parsedUrl } from '../domain/parsed-url.js';

/** The contract's words for the refused ranges; `reserved` covers every other special-purpose block. */
export type RefusedRange =
  'loopback' | 'private' | 'link-local' | 'shared' | 'multicast' | 'unspecified' | 'broadcast' | 'reserved' | 'invalid';

export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly range: RefusedRange };

/** `serve --webhook-allow-private`: whether loopback and private addresses are allowed too. */
export interface AddressPolicy {
  readonly allowPrivate: boolean;
}

const STRICT: AddressPolicy = { allowPrivate: false };
// The flag is for tests and a single host, whose receiver is on loopback or the local network.
// Nothing a user needs lives at link-local (the cloud metadata address), multicast, unspecified
// or reserved addresses, so those stay refused whatever the operator passes.
const LIFTED_BY_ALLOW_PRIVATE: ReadonlySet<RefusedRange> = new Set(['loopback', 'private']);

/** A refused host: thrown by the checking lookup (and so by the connection), or for an IP literal. */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  readonly code = 'ERR_WEBHOOK_REFUSED_ADDRESS';
  readonly range: RefusedRange;

  constructor(range: RefusedRange) {
    // The address itself stays out of the message: the attempt log is shown to the endpoint's
    // user, who should not learn what names resolve to inside the operator's network.
    super(`refused: the host's address is ${range}`);
    this.range = range;
  }
}

const RANGE_WORDS: Readonly<Record<string, RefusedRange>> = {
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'shared',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
};
// RFC 4291 section 2.4 and IANA's IPv6 address space: global unicast is 2000::/3; the rest of the
// space is special (fc00::/7, fe80::/10, ff00::/8) or reserved, including the deprecated
// IPv4-compatible ::a.b.c.d, which ipaddr.js would call unicast.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
// RFC 6052: DNS64 on an IPv6-only host answers 64:ff9b::a.b.c.d for an IPv4-only name; the
// gateway connects to a.b.c.d, so that is the address judged.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

function verdictFor(range: string): AddressVerdict {
  return range === 'unicast' ? { allowed: true } : { allowed: false, range: RANGE_WORDS[range] ?? 'reserved' };
}

/** Whether a call may connect to this IP address (IPv4-mapped IPv6 forms are judged as the IPv4 address). */
export function classifyWebhookAddress(address: string, policy: AddressPolicy = STRICT): AddressVerdict {
  const verdict = classifyStrictly(address);
  return !verdict.allowed && policy.allowPrivate && LIFTED_BY_ALLOW_PRIVATE.has(verdict.range)
    ? { allowed: true }
    : verdict;
}

function classifyStrictly(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return { allowed: false, range: 'invalid' };
  }
  if (parsed.kind() === 'ipv4') return verdictFor(parsed.range());
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(NAT64_WELL_KNOWN)) {
    const bytes = v6.toByteArray().slice(12);
    return verdictFor(new ipaddr.IPv4(bytes).range());
  }
  const verdict = verdictFor(v6.range());
  if (verdict.allowed && !v6.match(GLOBAL_UNICAST_V6)) return { allowed: false, range: 'reserved' };
  return verdict;
}

/**
 * The verdict on a URL's host when it is an IP literal (`127.0.0.1`, `[::1]`, and what the WHATWG
 * URL parser made of `2130706433` or `0x7f.1`), else null. A literal never goes through `lookup`:
 * net.connect dials it directly, so it must be judged before connecting.
 */
export function classifyLiteralHost(url: URL, policy: AddressPolicy = STRICT): AddressVerdict | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return net.isIP(host) === 0 ? null : classifyWebhookAddress(host, policy);
}

/**
 * Why a URL can never be called, for registration (docs/webhooks.md#where-calls-may-go): its host
 * is an IP literal refused even under `--webhook-allow-private`. Refused now, not after a week of
 * retries. A name, or a literal the flag would lift, is left to the call: the flag is the
 * sender's, and a name may resolve elsewhere by then. Undefined when there is no such problem.
 */
export function webhookHostProblem(text: string): string | undefined {
  const url = parsedUrl(text);
  if (url === undefined) return undefined;
  const verdict = classifyLiteralHost(url, { allowPrivate: true });
  if (verdict === null || verdict.allowed) return undefined;
  return `a webhook URL must not have a ${verdict.range} address as its host: calls are never sent there`;
}

/**
 * A `lookup` for net.connect that resolves with dns.lookup and refuses the host when any of its
 * addresses is refused. net.connect then connects only to the addresses this returned, with no
 * second resolution, so the address checked is the address called.
 */
export function createCheckingLookup(policy: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, '');
        return;
      }
      for (const { address } of addresses) {
        const verdict = classifyWebhookAddress(address, policy);
        if (!verdict.allowed) {
          callback(new RefusedAddressError(verdict.range), '');
          return;
        }
      }
      const first = addresses[0];
      if (options.all === true) callback(null, addresses);
      else if (first === undefined)
        callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      else callback(null, first.address, first.family);
    });
  };
}

/** The lookup without `--webhook-allow-private`. */
export const checkingLookup = createCheckingLookup(STRICT);
