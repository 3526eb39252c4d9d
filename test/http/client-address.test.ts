import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { clientAddressOf, parseTrustedProxies, type TrustedProxies } from '../../src/listener/client-address.js';

function trusting(text: string): TrustedProxies {
  const parsed = parseTrustedProxies(text);
  if ('error' in parsed) return assert.fail(parsed.error);
  return parsed;
}

describe('--trust-proxy', () => {
  test('takes addresses and CIDR networks, IPv4 and IPv6, and matches IPv4-mapped addresses', () => {
    const trusted = trusting('127.0.0.1, 10.0.0.0/8,fd00::/8');
    assert.deepEqual(trusted.list, ['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    for (const inside of ['127.0.0.1', '::ffff:127.0.0.1', '10.1.2.3', 'fd12:3456::1'])
      assert.ok(trusted.has(inside), inside);
    for (const outside of ['127.0.0.2', '11.0.0.1', 'fe80::1', '2001:db8::1', 'not-an-address', '']) {
      assert.equal(trusted.has(outside), false, outside);
    }
  });

  test('refuses what is not an address or a network, saying which', () => {
    for (const bad of ['', ' , ', 'localhost', '10.0.0.0/33', '10.0.0.0/x', '::/129', '10.0.0.1/8/8', '10.0.0.256']) {
      const parsed = parseTrustedProxies(bad);
      assert.ok('error' in parsed, `accepted ${JSON.stringify(bad)}`);
    }
    const parsed = parseTrustedProxies('127.0.0.1,localhost');
    assert.ok('error' in parsed && parsed.error.includes('"localhost"'));
  });
});

describe('the client address behind trusted proxies', () => {
  const trusted = trusting('127.0.0.1,10.0.0.0/8');

  test('without trusted proxies, or from a peer not trusted, X-Forwarded-For is ignored', () => {
    assert.equal(clientAddressOf('127.0.0.1', '203.0.113.5', undefined), '127.0.0.1');
    assert.equal(clientAddressOf('198.51.100.1', '203.0.113.5', trusted), '198.51.100.1');
    assert.equal(clientAddressOf('127.0.0.1', undefined, trusted), '127.0.0.1');
  });

  test('is the rightmost entry that is not a trusted proxy', () => {
    assert.equal(clientAddressOf('127.0.0.1', '203.0.113.5', trusted), '203.0.113.5');
    assert.equal(clientAddressOf('127.0.0.1', '1.1.1.1, 203.0.113.5, 10.0.0.7', trusted), '203.0.113.5');
    assert.equal(clientAddressOf('::ffff:127.0.0.1', '2001:db8::5', trusted), '2001:db8::5');
    assert.equal(clientAddressOf('127.0.0.1', ['1.1.1.1', '203.0.113.5'], trusted), '203.0.113.5');
    assert.equal(clientAddressOf('127.0.0.1', '203.0.113.5:51234', trusted), '203.0.113.5');
    assert.equal(clientAddressOf('127.0.0.1', '[2001:db8::5]:443', trusted), '2001:db8::5');
  });

  test('stops at the last trusted hop when an entry is not an address, or when every hop is trusted', () => {
    assert.equal(clientAddressOf('127.0.0.1', 'unknown, 10.0.0.7', trusted), '10.0.0.7');
    assert.equal(clientAddressOf('127.0.0.1', '', trusted), '127.0.0.1');
    assert.equal(clientAddressOf('127.0.0.1', '10.0.0.8, 10.0.0.7', trusted), '10.0.0.8');
  });

  test('whatever a client writes into the header, it cannot choose the address the proxy appended after it', () => {
    const ipv4 = fc.ipV4().filter((address) => !trusted.has(address));
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string())), ipv4, (written, real) => {
        // The client sends `written`; the trusted proxy at 127.0.0.1 appends the address it saw.
        const header = [...written, real].join(', ');
        assert.equal(clientAddressOf('127.0.0.1', header, trusted), real);
      }),
      { numRuns: 2000 },
    );
  });
});
