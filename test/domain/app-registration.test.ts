import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  appRegistrationOf,
  homepageUrlFault,
  redirectUriFault,
  redirectUrisFault,
} from '../../src/domain/app-registration.js';

describe('an app registration: its name, redirect URIs and homepage', () => {
  test('accepts https:// URLs and plain http:// to the loopback interface with any port', () => {
    for (const uri of [
      'https://coach.example/oauth/callback',
      'https://coach.example:8443/cb?app=1',
      'HTTPS://coach.example/cb',
      'http://127.0.0.1/cb',
      'http://127.0.0.1:53682/callback',
      'http://[::1]:8080/cb',
      'http://localhost:3000/auth',
      'http://localhost',
    ]) {
      assert.equal(redirectUriFault(uri), undefined, uri);
    }
  });

  test('refuses a fragment, another scheme, plain http:// elsewhere, a disguised loopback, spaces and credentials', () => {
    for (const uri of [
      'https://coach.example/cb#top',
      'https://coach.example/cb#',
      'http://coach.example/cb',
      'http://127.0.0.2/cb',
      'http://0x7f.0.0.1/cb',
      'http://localhost.coach.example/cb',
      'http://127.0.0.1.nip.io/cb',
      'https:coach.example/cb',
      'https:///cb',
      'ftp://coach.example/cb',
      'com.coach.app:/oauth',
      'javascript:alert(1)',
      '/cb',
      '',
      'https://coach.example/c b',
      ' https://coach.example/cb',
      'https://\\coach.example/cb',
      'https://coach.example/cb\n',
      'https://user:pw@coach.example/cb',
      'http://localhost:99999/cb',
      `https://coach.example/${'a'.repeat(2048)}`,
    ]) {
      assert.notEqual(redirectUriFault(uri), undefined, JSON.stringify(uri));
    }
    assert.equal(redirectUriFault(`https://coach.example/${'a'.repeat(2048 - 22)}`), undefined, '2048 characters');
  });

  test('1 to 10 redirect URIs, each by the rule', () => {
    const uri = (i: number) => `https://coach.example/cb/${i}`;
    assert.match(redirectUrisFault([]) ?? '', /1 to 10/);
    assert.equal(redirectUrisFault(Array.from({ length: 10 }, (_, i) => uri(i))), undefined);
    assert.match(redirectUrisFault(Array.from({ length: 11 }, (_, i) => uri(i))) ?? '', /1 to 10/);
    assert.match(redirectUrisFault([uri(1), 'http://coach.example/']) ?? '', /https/);
  });

  test('a homepage is an https:// URL', () => {
    assert.equal(homepageUrlFault('https://coach.example'), undefined);
    for (const url of [
      'http://coach.example',
      'coach.example',
      '',
      'https://',
      `https://c.example/${'a'.repeat(2048)}`,
    ]) {
      assert.notEqual(homepageUrlFault(url), undefined, url);
    }
  });

  test('a registration is the name trimmed, the URIs as given, the homepage or null', () => {
    assert.deepEqual(appRegistrationOf({ name: '  Coach  ', redirectUris: ['https://c.example/cb'] }), {
      ok: true,
      registration: { name: 'Coach', redirectUris: ['https://c.example/cb'], homepageUrl: null },
    });
    const full = appRegistrationOf({
      name: 'Coach',
      redirectUris: ['https://c.example/cb', 'http://localhost:3000/cb'],
      homepageUrl: 'https://c.example',
    });
    assert.ok(full.ok);
    assert.deepEqual(full.registration.redirectUris, ['https://c.example/cb', 'http://localhost:3000/cb']);
    assert.equal(full.registration.homepageUrl, 'https://c.example');
  });

  test('the first field at fault is named, as a value: name, then redirectUris, then homepageUrl', () => {
    const param = (input: Parameters<typeof appRegistrationOf>[0]) => {
      const result = appRegistrationOf(input);
      return result.ok ? 'ok' : result.fault.param;
    };
    const uris = ['https://c.example/cb'];
    assert.equal(param({ name: '   ', redirectUris: uris }), 'name');
    assert.equal(param({ name: 'x'.repeat(101), redirectUris: uris }), 'name');
    assert.equal(param({ name: 'a\u0007b', redirectUris: uris }), 'name');
    assert.equal(param({ name: 7, redirectUris: [] }), 'name');
    assert.equal(param({ name: 'x'.repeat(100), redirectUris: uris }), 'ok');
    assert.equal(param({ name: 'C', redirectUris: 'https://c.example/cb' }), 'redirectUris');
    assert.equal(param({ name: 'C', redirectUris: [7] }), 'redirectUris');
    assert.equal(param({ name: 'C', redirectUris: undefined }), 'redirectUris');
    assert.equal(param({ name: 'C', redirectUris: ['https://c.example/#x'] }), 'redirectUris');
    assert.equal(param({ name: 'C', redirectUris: uris, homepageUrl: 'http://c.example' }), 'homepageUrl');
    assert.equal(param({ name: 'C', redirectUris: uris, homepageUrl: 3 }), 'homepageUrl');
    assert.equal(param({ name: 'C', redirectUris: uris, homepageUrl: null }), 'ok');
  });
});
