import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isRegisteredRedirectUri } from '../../src/domain/oauth-authorization.js';
import { s256Challenge, verifierMatches } from '../../src/domain/pkce.js';

// RFC 7636 appendix B's example, and the redirect URI rule of docs/connect.md#the-grant.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

test("S256 of RFC 7636's example verifier is its example challenge", () => {
  assert.equal(s256Challenge(VERIFIER), CHALLENGE);
  assert.equal(verifierMatches(VERIFIER, CHALLENGE), true);
});

test('another verifier, a short one, or one outside the alphabet does not match', () => {
  assert.equal(verifierMatches(`${VERIFIER.slice(0, -1)}Y`, CHALLENGE), false);
  assert.equal(verifierMatches('short', s256Challenge('short')), false);
  const spaced = `${VERIFIER.slice(0, -1)} `;
  assert.equal(verifierMatches(spaced, s256Challenge(spaced)), false);
});

test('a redirect URI is registered character for character, but a loopback one’s port', () => {
  const registered = ['https://coach.example/callback', 'http://127.0.0.1:3080/cb', 'http://[::1]/cb'];
  assert.equal(isRegisteredRedirectUri(registered, 'https://coach.example/callback'), true);
  assert.equal(isRegisteredRedirectUri(registered, 'https://coach.example/callback/'), false);
  assert.equal(isRegisteredRedirectUri(registered, 'https://coach.example:8443/callback'), false);
  assert.equal(isRegisteredRedirectUri(registered, 'http://127.0.0.1:51000/cb'), true);
  assert.equal(isRegisteredRedirectUri(registered, 'http://127.0.0.1:51000/other'), false);
  assert.equal(isRegisteredRedirectUri(registered, 'http://[::1]:40000/cb'), true);
  assert.equal(isRegisteredRedirectUri(registered, 'http://localhost:3080/cb'), false);
});
