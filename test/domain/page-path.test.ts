import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pagePathFault } from '../../src/domain/page-path.js';

// `next` of a sign-in link: a path of the page, never another site (docs/host-api.md).
test('a path of the page, with its query, is taken', () => {
  for (const next of ['/', '/oauth/authorize?response_type=code&client_id=app_1&state=%2F%2F', '/keys/key_1/revoke']) {
    assert.equal(pagePathFault(next), undefined, next);
  }
});

test('anything that could lead elsewhere, or that a Location header cannot carry, is refused', () => {
  for (const next of [
    '',
    'oauth/authorize',
    '//evil.example/',
    '/\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '/path with space',
    '/café',
    '/\u0000',
    `/${'a'.repeat(2048)}`,
  ]) {
    assert.match(pagePathFault(next) ?? '', /^next must be a path of the app page/, JSON.stringify(next));
  }
});
