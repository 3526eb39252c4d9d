import assert from 'node:assert/strict';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { describe, it } from 'node:test';
import {
  checkingLookup,
  classifyLiteralHost,
  classifyWebhookAddress,
  createCheckingLookup,
  RefusedAddressError,
  webhookHostProblem,
} from '../../src/webhooks/webhook-address.js';

// Only classified here: no traffic is ever sent to these addresses.
const REFUSED: ReadonlyArray<readonly [string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['100.64.0.1', 'shared'],
  ['100.127.255.255', 'shared'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['203.0.113.7', 'reserved'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fe80::1', 'link-local'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:100.64.0.1', 'shared'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::a00:1', 'private'],
  ['::7f00:1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['2002:7f00:1::1', 'reserved'],
  ['2001::1', 'reserved'],
  ['fec0::1', 'reserved'],
  ['100::1', 'reserved'],
  ['not an address', 'invalid'],
];

const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '100.63.255.255',
  '100.128.0.1',
  '172.15.255.255',
  '172.32.0.1',
  '192.169.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001::1',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

describe('classifyWebhookAddress', () => {
  for (const [address, range] of REFUSED) {
    it(`refuses ${address} as ${range}`, () => {
      assert.deepEqual(classifyWebhookAddress(address), { allowed: false, range });
    });
  }

  it('allows public unicast addresses, IPv4, IPv6, IPv4-mapped and NAT64 forms', () => {
    for (const address of ALLOWED) assert.deepEqual(classifyWebhookAddress(address), { allowed: true }, address);
  });
});

// docs/webhooks.md#where-calls-may-go: the flag lifts loopback and private, each in IPv4 and
// IPv4-mapped IPv6 form; every other family stays refused in both forms.
const LIFTED: ReadonlyArray<readonly [string, string]> = [
  ['127.0.0.1', '::ffff:127.0.0.1'],
  ['10.0.0.1', '::ffff:10.0.0.1'],
  ['172.16.0.1', '::ffff:172.16.0.1'],
  ['192.168.1.1', '::ffff:192.168.1.1'],
];
const KEPT: ReadonlyArray<readonly [string, string, string]> = [
  ['169.254.169.254', '::ffff:169.254.169.254', 'link-local'],
  ['100.64.0.1', '::ffff:100.64.0.1', 'shared'],
  ['224.0.0.1', '::ffff:224.0.0.1', 'multicast'],
  ['0.0.0.0', '::ffff:0.0.0.0', 'unspecified'],
  ['255.255.255.255', '::ffff:255.255.255.255', 'broadcast'],
  ['240.0.0.1', '::ffff:240.0.0.1', 'reserved'],
  ['192.0.2.1', '::ffff:192.0.2.1', 'reserved'],
];

describe('classifyWebhookAddress with allowPrivate', () => {
  const allowPrivate = { allowPrivate: true };

  it('allows loopback and private addresses, IPv4 and IPv4-mapped, and IPv6 ::1 and fc00::/7', () => {
    for (const address of [...LIFTED.flat(), '::1', 'fd12:3456::1']) {
      assert.deepEqual(classifyWebhookAddress(address, allowPrivate), { allowed: true }, address);
    }
  });

  for (const [v4, mapped, range] of KEPT) {
    it(`still refuses ${v4} and ${mapped} as ${range}`, () => {
      assert.deepEqual(classifyWebhookAddress(v4, allowPrivate), { allowed: false, range });
      assert.deepEqual(classifyWebhookAddress(mapped, allowPrivate), { allowed: false, range });
    });
  }

  it('still refuses IPv6 link-local, multicast, unspecified and reserved addresses', () => {
    const kept: ReadonlyArray<readonly [string, string]> = [
      ['fe80::1', 'link-local'],
      ['ff02::1', 'multicast'],
      ['::', 'unspecified'],
      ['2001:db8::1', 'reserved'],
    ];
    for (const [address, range] of kept) {
      assert.deepEqual(classifyWebhookAddress(address, allowPrivate), { allowed: false, range }, address);
    }
  });
});

describe('webhookHostProblem', () => {
  it('names the range of a literal refused even with allowPrivate, in IPv4 and IPv4-mapped form', () => {
    for (const [v4, mapped, range] of KEPT) {
      for (const url of [`https://${v4}/x`, `https://[${mapped}]/x`]) {
        assert.equal(
          webhookHostProblem(url),
          `a webhook URL must not have a ${range} address as its host: calls are never sent there`,
          url,
        );
      }
    }
  });

  it('leaves names, public addresses and what allowPrivate lifts to the call', () => {
    for (const [v4, mapped] of LIFTED) {
      assert.equal(webhookHostProblem(`https://${v4}/x`), undefined, v4);
      assert.equal(webhookHostProblem(`https://[${mapped}]/x`), undefined, mapped);
    }
    for (const url of ['https://hooks.example.com/', 'https://8.8.8.8/', 'https://[2606:4700:4700::1111]/']) {
      assert.equal(webhookHostProblem(url), undefined, url);
    }
  });
});

describe('classifyLiteralHost', () => {
  it('judges IP literals in every form the URL parser accepts', () => {
    const literals: ReadonlyArray<readonly [string, string]> = [
      ['https://127.0.0.1/', 'loopback'],
      ['https://127.1/', 'loopback'],
      ['https://2130706433/', 'loopback'],
      ['https://0x7f.1/', 'loopback'],
      ['https://0177.0.0.1/', 'loopback'],
      ['https://[::1]/', 'loopback'],
      ['https://[::ffff:127.0.0.1]/', 'loopback'],
      ['https://[64:ff9b::127.0.0.1]/', 'loopback'],
      ['https://167772161/', 'private'],
      ['https://[fe80::1]:8443/', 'link-local'],
    ];
    for (const [url, range] of literals) {
      assert.deepEqual(classifyLiteralHost(new URL(url)), { allowed: false, range }, url);
    }
    assert.deepEqual(classifyLiteralHost(new URL('https://8.8.8.8/')), { allowed: true });
    assert.deepEqual(classifyLiteralHost(new URL('https://[2606:4700:4700::1111]/')), { allowed: true });
  });

  it('leaves a name to the lookup', () => {
    assert.equal(classifyLiteralHost(new URL('https://localhost/')), null);
    assert.equal(classifyLiteralHost(new URL('https://hooks.example.com/path')), null);
  });
});

type LookupResult = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function lookup(hostname: string, options: LookupOptions): Promise<LookupResult> {
  return new Promise((resolve) => {
    checkingLookup(hostname, options, (error, address, family) =>
      resolve(family === undefined ? { error, address } : { error, address, family }),
    );
  });
}

describe('checkingLookup', () => {
  it('refuses localhost, which resolves to loopback, whether one or all addresses are asked for', async () => {
    for (const all of [true, false]) {
      const { error } = await lookup('localhost', { all });
      assert.ok(error instanceof RefusedAddressError);
      assert.equal(error.range, 'loopback');
      assert.equal(error.message, "refused: the host's address is loopback");
    }
  });

  it('with allowPrivate lets localhost through but still refuses a link-local address', async () => {
    const lenient = createCheckingLookup({ allowPrivate: true });
    const answer = (hostname: string) =>
      new Promise<NodeJS.ErrnoException | null>((resolve) =>
        lenient(hostname, { all: true }, (error) => resolve(error)),
      );
    assert.equal(await answer('localhost'), null);
    const error = await answer('169.254.169.254');
    assert.ok(error instanceof RefusedAddressError);
    assert.equal(error.range, 'link-local');
  });

  it('answers a public address in the shape net.connect asked for', async () => {
    // dns.lookup answers a numeric host without a query, so this needs no network.
    assert.deepEqual(await lookup('8.8.8.8', { all: true }), {
      error: null,
      address: [{ address: '8.8.8.8', family: 4 }],
    });
    assert.deepEqual(await lookup('8.8.8.8', {}), { error: null, address: '8.8.8.8', family: 4 });
  });
});
