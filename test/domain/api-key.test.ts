import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  digestApiKey,
  displayPrefix,
  generateApiKey,
  isWellFormedApiKey,
  redactApiKeys,
} from '../../src/domain/api-key.js';
import { generateAppSecret } from '../../src/domain/app-secret.js';
import { generateServiceToken } from '../../src/domain/service-token.js';
import { assertEverySingleChangeFails, publishedChecksum } from '../support/credential-rule.js';

describe('API keys', () => {
  test('a generated key is mxk_ and 49 base62 characters', () => {
    for (let i = 0; i < 200; i += 1) assert.match(generateApiKey(), /^mxk_[0-9A-Za-z]{49}$/);
  });

  test("a generated key's last 6 characters are the base62 CRC32 of the 43 before them, left-padded with 0", () => {
    for (let i = 0; i < 200; i += 1) {
      const key = generateApiKey();
      const body = key.slice(4, 47);
      assert.equal(key.slice(47), publishedChecksum(body), key);
    }
  });

  test('a key built by a secret scanner from the published rule is well formed', () => {
    const body = 'A'.repeat(43);
    assert.equal(isWellFormedApiKey(`mxk_${body}${publishedChecksum(body)}`), true);
    const zeros = '0'.repeat(43);
    assert.equal(isWellFormedApiKey(`mxk_${zeros}${publishedChecksum(zeros)}`), true);
  });

  test('changing any single character of a key makes it fail the check', () => {
    const key = generateApiKey();
    assert.equal(isWellFormedApiKey(key), true);
    assertEverySingleChangeFails(key, isWellFormedApiKey);
  });

  test('a truncated, extended, padded or differently prefixed key fails the check', () => {
    const key = generateApiKey();
    for (const bad of [
      key.slice(0, -1),
      `${key}0`,
      ` ${key}`,
      `${key} `,
      `${key}\n`,
      key.replace('mxk_', 'MXK_'),
      key.replace('mxk_', 'mxk-'),
      key.slice(4),
      '',
      'mxk_',
    ]) {
      assert.equal(isWellFormedApiKey(bad), false, JSON.stringify(bad));
    }
  });

  test('the stored digest is the SHA-256 of the key text', () => {
    const key = generateApiKey();
    const digest = digestApiKey(key);
    assert.equal(digest.length, 32);
    assert.deepEqual(digest, createHash('sha256').update(key, 'utf8').digest());
    assert.notDeepEqual(digestApiKey(generateApiKey()), digest);
  });

  test('the displayed prefix is mxk_ and 8 more characters, never the whole secret', () => {
    const key = generateApiKey();
    assert.equal(displayPrefix(key), key.slice(0, 12));
  });

  test('redaction removes every key from a text and keeps the rest', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    const text = `Authorization: Bearer ${a}\nurl=/v1/meals?api_key=${b}&limit=5 "${a}"`;
    const redacted = redactApiKeys(text);
    for (const key of [a, b]) {
      assert.equal(redacted.includes(key), false);
      assert.equal(redacted.includes(key.slice(4, 20)), false);
    }
    assert.ok(redacted.startsWith('Authorization: Bearer '));
    assert.ok(redacted.includes('&limit=5'));
    assert.equal(redactApiKeys('no secrets here'), 'no secrets here');
  });

  test('redaction finds a percent-encoded key even beside a malformed or non-ASCII escape', () => {
    const key = generateApiKey();
    const encoded = key.replace('_', '%5F');
    for (const text of [
      `/v1/meals?x=%ZZ&api_key=${encoded}`,
      `/v1/meals?api_key=${encoded.replace('%5F', '%255F')}&y=%E0%A4%A`,
      `/v1/meals?name=%C3%A9%FF&api_key=${key.slice(0, 10)}%${key.charCodeAt(10).toString(16)}${key.slice(11)}`,
    ]) {
      const redacted = redactApiKeys(text);
      assert.equal(redacted.includes(key.slice(4, 20)), false, `${text} -> ${redacted}`);
      assert.ok(redacted.includes('mxk_[redacted]'), redacted);
    }
    assert.equal(redactApiKeys('/v1/meals?x=%ZZ&t=%C3%A9'), '/v1/meals?x=%ZZ&t=%C3%A9', 'the rest is kept as it came');
    // A URL without a credential is logged as received: x%2Fy and x/y are two ids.
    assert.equal(redactApiKeys('/host/v1/users/u/meals/x%2Fy%20z%25'), '/host/v1/users/u/meals/x%2Fy%20z%25');
  });

  test('redaction removes service tokens too, as mxs_[redacted], encoded or not, beside keys', () => {
    const key = generateApiKey();
    const token = generateServiceToken();
    for (const text of [
      `Authorization: Bearer ${token}`,
      `/host/v1/meals?token=${token}&key=${key}`,
      `/host/v1/meals?token=${token.replace('_', '%5F')}`,
      `/host/v1/meals?token=${token.replace('_', '%255F')}&x=%ZZ`,
    ]) {
      const redacted = redactApiKeys(text);
      assert.equal(redacted.includes(token.slice(4, 20)), false, `${text} -> ${redacted}`);
      assert.equal(redacted.includes(key.slice(4, 20)), false, `${text} -> ${redacted}`);
      assert.ok(redacted.includes('mxs_[redacted]'), redacted);
    }
    assert.equal(redactApiKeys(`Bearer ${token}`), 'Bearer mxs_[redacted]');
    assert.equal(redactApiKeys(`Bearer ${key}`), 'Bearer mxk_[redacted]');
    assert.equal(redactApiKeys('mxz_abcdefgh mxs_ab'), 'mxz_abcdefgh mxs_ab', 'other prefixes and short runs are kept');
  });

  test("redaction removes apps' client secrets too, as mxa_[redacted], encoded or not, beside keys", () => {
    const key = generateApiKey();
    const secret = generateAppSecret();
    for (const text of [
      `client_secret=${secret}&client_id=app_x`,
      `/oauth/token?client_secret=${secret.replace('_', '%5F')}&key=${key}`,
      `/oauth/token?client_secret=${secret.replace('_', '%255F')}&x=%ZZ`,
    ]) {
      const redacted = redactApiKeys(text);
      assert.equal(redacted.includes(secret.slice(4, 20)), false, `${text} -> ${redacted}`);
      assert.equal(redacted.includes(key.slice(4, 20)), false, `${text} -> ${redacted}`);
      assert.ok(redacted.includes('mxa_[redacted]'), redacted);
    }
    assert.equal(redactApiKeys(`"clientSecret":"${secret}"`), '"clientSecret":"mxa_[redacted]"');
  });

  test('10000 generated keys are all distinct', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 10_000; i += 1) keys.add(generateApiKey());
    assert.equal(keys.size, 10_000);
  });

  test('generated keys use the whole alphabet, leading characters included', () => {
    const firsts = new Set<string>();
    const all = new Set<string>();
    for (let i = 0; i < 2000; i += 1) {
      const key = generateApiKey();
      firsts.add(key.slice(4, 5));
      for (const c of key.slice(5, 47)) all.add(c);
    }
    assert.equal(all.size, 62);
    // 62^43 is just above 2^256, so the first body character only ranges over 0-9, A-Z and a-y.
    assert.ok(firsts.size > 40, `first characters seen: ${[...firsts].sort().join('')}`);
  });
});
