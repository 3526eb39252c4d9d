import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { generateApiKey, isWellFormedApiKey } from '../../src/domain/api-key.js';
import { credentialFormat } from '../../src/domain/credential-format.js';
import {
  digestServiceToken,
  generateServiceToken,
  isWellFormedServiceToken,
  newServiceTokenId,
  serviceTokenDisplayPrefix,
  serviceTokenNameProblem,
} from '../../src/domain/service-token.js';
import { assertEverySingleChangeFails, publishedChecksum } from '../support/credential-rule.js';

describe('service tokens: the API keys format with the mxs_ prefix', () => {
  test("a generated token is mxs_, 43 base62 characters and the 6 of their CRC32's checksum", () => {
    for (let i = 0; i < 200; i += 1) {
      const token = generateServiceToken();
      assert.match(token, /^mxs_[0-9A-Za-z]{49}$/);
      assert.equal(token.slice(47), publishedChecksum(token.slice(4, 47)), token);
      assert.equal(isWellFormedServiceToken(token), true);
    }
  });

  test('a token built by a secret scanner from the published rule is well formed', () => {
    const body = 'Z'.repeat(43);
    assert.equal(isWellFormedServiceToken(`mxs_${body}${publishedChecksum(body)}`), true);
  });

  test('a token is not an API key, nor a key a token, though their bodies follow one rule', () => {
    const token = generateServiceToken();
    const key = generateApiKey();
    assert.equal(isWellFormedApiKey(token), false);
    assert.equal(isWellFormedServiceToken(key), false);
    assert.equal(isWellFormedServiceToken(`mxs_${key.slice(4)}`), true, 'the same body under the other prefix');
  });

  test('changing any single character, truncating, padding or another prefix makes it fail the check', () => {
    const token = generateServiceToken();
    assertEverySingleChangeFails(token, isWellFormedServiceToken);
    for (const bad of [token.slice(0, -1), `${token}0`, ` ${token}`, `${token}\n`, token.replace('mxs_', 'MXS_'), '']) {
      assert.equal(isWellFormedServiceToken(bad), false, JSON.stringify(bad));
    }
  });

  test('the stored digest is the SHA-256 of the token text; the shown prefix is mxs_ and 8 more', () => {
    const token = generateServiceToken();
    assert.deepEqual(digestServiceToken(token), createHash('sha256').update(token, 'utf8').digest());
    assert.equal(serviceTokenDisplayPrefix(token), token.slice(0, 12));
  });

  test('ids are svc_ and 16 base62 characters, all distinct', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newServiceTokenId()));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^svc_[0-9A-Za-z]{16}$/);
  });

  test('a name is 1 to 100 characters without control characters', () => {
    for (const name of ['billing back end', 'x', 'é'.repeat(100)])
      assert.equal(serviceTokenNameProblem(name), undefined);
    for (const name of ['', 'x'.repeat(101), 'a\nb', 'a\u0085b']) {
      assert.match(serviceTokenNameProblem(name) ?? '', /1 to 100 characters/, JSON.stringify(name));
    }
  });

  test('a credential prefix is a few lower-case letters and _, so it is a literal in a pattern', () => {
    for (const prefix of ['mx.', 'MXS_', 'mxs', '(a)_', 'a_']) assert.throws(() => credentialFormat(prefix), /prefix/);
    assert.equal(credentialFormat('abc_').prefix, 'abc_');
  });
});
