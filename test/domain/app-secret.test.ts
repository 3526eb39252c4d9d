import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { isWellFormedApiKey } from '../../src/domain/api-key.js';
import { digestAppSecret, generateAppSecret, isWellFormedAppSecret, newAppId } from '../../src/domain/app-secret.js';
import { generateServiceToken, isWellFormedServiceToken } from '../../src/domain/service-token.js';
import { assertEverySingleChangeFails, publishedChecksum } from '../support/credential-rule.js';

describe("apps' client secrets: the API keys format with the mxa_ prefix", () => {
  test("a generated secret is mxa_, 43 base62 characters and the 6 of their CRC32's checksum", () => {
    for (let i = 0; i < 200; i += 1) {
      const secret = generateAppSecret();
      assert.match(secret, /^mxa_[0-9A-Za-z]{49}$/);
      assert.equal(secret.slice(47), publishedChecksum(secret.slice(4, 47)), secret);
      assert.equal(isWellFormedAppSecret(secret), true);
    }
  });

  test('a secret is neither an API key nor a service token, nor either of them a secret', () => {
    const secret = generateAppSecret();
    assert.equal(isWellFormedApiKey(secret), false);
    assert.equal(isWellFormedServiceToken(secret), false);
    assert.equal(isWellFormedAppSecret(generateServiceToken()), false);
  });

  test('changing any single character, truncating, padding or another prefix makes it fail the check', () => {
    const secret = generateAppSecret();
    assertEverySingleChangeFails(secret, isWellFormedAppSecret);
    for (const bad of [secret.slice(0, -1), `${secret}0`, ` ${secret}`, secret.replace('mxa_', 'MXA_'), '']) {
      assert.equal(isWellFormedAppSecret(bad), false, JSON.stringify(bad));
    }
  });

  test('the stored digest is the SHA-256 of the secret text', () => {
    const secret = generateAppSecret();
    assert.deepEqual(digestAppSecret(secret), createHash('sha256').update(secret, 'utf8').digest());
  });

  test('ids are app_ and 16 base62 characters, all distinct', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newAppId()));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^app_[0-9A-Za-z]{16}$/);
  });
});
