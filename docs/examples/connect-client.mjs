#!/usr/bin/env node
// A third party's server asking a person for a meal-export key by their consent, with the
// standard OAuth client library oauth4webapi (npm install oauth4webapi).
// docs/connect.md#in-nodejs shows it; test/docs/connect-examples.test.ts runs it.
//
//   MEAL_EXPORT_ISSUER=https://api.diet.example CLIENT_ID=app_… CLIENT_SECRET=mxa_… \
//   REDIRECT_URI=https://coach.example/callback node connect-client.mjs start
//
// start: prints the address to send the person to, and keeps the verifier and state (data/);
// finish CALLBACK_URL: the address the person came back to, exchanged for the key (printed as
// JSON, kept in data/connect-key.json); revoke: gives the key back. Against a local serve, trust
// its certificate with NODE_EXTRA_CA_CERTS=data/tls/cert.pem.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as oauth from 'oauth4webapi';

const env = (name) => process.env[name] ?? '';
const issuer = new URL(env('MEAL_EXPORT_ISSUER'));
const client = { client_id: env('CLIENT_ID') };
const auth = oauth.ClientSecretBasic(env('CLIENT_SECRET'));
const redirectUri = env('REDIRECT_URI');
const PENDING = 'data/connect-pending.json';
const KEY = 'data/connect-key.json';

// The server describes itself (RFC 8414): its endpoints, PKCE S256, the scope meals:read.
const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2' }));
mkdirSync('data', { recursive: true });

const [command, argument] = process.argv.slice(2);
if (command === 'start') {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  writeFileSync(PENDING, JSON.stringify({ verifier, state }));
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope: 'meals:read',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  console.log(url.href);
} else if (command === 'finish') {
  const { verifier, state } = JSON.parse(readFileSync(PENDING, 'utf8'));
  // Checks state and iss, and turns error=access_denied (the person pressed Cancel) into an error.
  const params = oauth.validateAuthResponse(as, client, new URL(argument), state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier);
  const token = await oauth.processAuthorizationCodeResponse(as, client, response);
  // An ordinary meal-export key of the person's: keep it as a secret, use it as Bearer on /v1/meals.
  writeFileSync(KEY, JSON.stringify(token));
  console.log(
    JSON.stringify({
      key_id: token.key_id,
      user_id: token.user_id,
      scope: token.scope,
      access_token: token.access_token,
    }),
  );
} else if (command === 'revoke') {
  const { access_token: key } = JSON.parse(readFileSync(KEY, 'utf8'));
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, key));
  console.log('revoked');
} else {
  console.error('usage: connect-client.mjs start | finish CALLBACK_URL | revoke');
  process.exit(2);
}
