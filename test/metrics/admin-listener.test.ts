import assert from 'node:assert/strict';
import http from 'node:http';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { getMeals, newUserId, request, startTestServer, type TestServer } from '../support/server.js';
import { sampleSum, samples, scrape } from '../support/metrics.js';

let server: TestServer;

before(async () => {
  server = await startTestServer({ adminPort: 0 });
});

after(async () => {
  await server.stop();
});

const OLD = '2025-01-01T00:00:00Z';

test('the admin listener is logged on stderr, and stdout holds only the listening line', () => {
  assert.match(server.adminUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(server.stdout(), `listening on ${server.url}\n`);
});

test('/metrics on the admin port counts requests by route template and status, never by raw URL', async () => {
  const { key } = await server.createKey(newUserId());
  assert.equal((await getMeals(server, key, { lastModifiedSince: OLD })).status, 200);
  assert.equal((await getMeals(server, key, { lastModifiedSince: OLD, limt: '5' })).status, 400);
  assert.equal((await getMeals(server, undefined, { lastModifiedSince: OLD })).status, 401);
  assert.equal((await request(server, { path: '/healthz' })).status, 200);
  assert.equal((await request(server, { path: '/healthz?probe=1' })).status, 200);
  assert.equal((await request(server, { path: '/v1/openapi.json' })).status, 200);
  assert.equal((await request(server, { path: '/no/such/secret-path?x=1' })).status, 404);

  const scraped = await scrape(server.adminUrl);
  assert.equal(scraped.status, 200);
  assert.match(scraped.contentType ?? '', /^text\/plain; version=0\.0\.4/);
  const { text } = scraped;
  const requests = 'meal_export_http_requests_total';
  assert.equal(sampleSum(text, requests, { route: '/v1/meals', status: '200' }), 1);
  assert.equal(sampleSum(text, requests, { route: '/v1/meals', status: '400' }), 1);
  assert.equal(sampleSum(text, requests, { route: '/v1/meals', status: '401' }), 1);
  assert.equal(sampleSum(text, requests, { route: '/healthz', status: '200' }), 2);
  assert.equal(sampleSum(text, requests, { route: '/v1/openapi.json', status: '200' }), 1);
  assert.equal(sampleSum(text, requests, { route: 'other', status: '404' }), 1);
  const routes = new Set(samples(text, requests).map((s) => s.labels.route));
  assert.deepEqual([...routes].sort(), ['/healthz', '/v1/meals', '/v1/openapi.json', 'other']);
  assert.doesNotMatch(text, /secret-path|limt|probe/, 'no raw URL reaches a label');
});

test('/metrics has the latency histogram, the limiter decisions and the storage query times', async () => {
  const { key } = await server.createKey(newUserId());
  assert.equal((await getMeals(server, key, { lastModifiedSince: OLD })).status, 200);
  assert.equal((await getMeals(server, key, { lastModifiedSince: OLD })).status, 200);
  assert.equal((await getMeals(server, 'mxk_not-a-key', { lastModifiedSince: OLD })).status, 401);

  const { text } = await scrape(server.adminUrl);
  const histogram = 'meal_export_http_request_duration_seconds';
  const count = sampleSum(text, `${histogram}_count`, { route: '/v1/meals' });
  assert.ok(count >= 3, `latency observed per request: ${count}`);
  assert.equal(sampleSum(text, `${histogram}_bucket`, { route: '/v1/meals', le: '+Inf' }), count);
  assert.ok(sampleSum(text, `${histogram}_sum`, { route: '/v1/meals' }) > 0);

  const decisions = 'meal_export_limiter_decisions_total';
  assert.ok(sampleSum(text, decisions, { limiter: 'rate', backend: 'memory', decision: 'allowed' }) >= 2);
  assert.ok(sampleSum(text, decisions, { limiter: 'auth_failures', backend: 'memory', decision: 'allowed' }) >= 1);

  const queries = 'meal_export_storage_query_duration_seconds_count';
  assert.ok(sampleSum(text, queries, { method: 'listFeed' }) >= 2, 'each page is one timed listFeed');
  assert.ok(sampleSum(text, queries, { method: 'findApiKeysByDigests' }) >= 1);
  assert.ok(sampleSum(text, queries, { method: 'pruneTombstones' }) >= 1, 'the prune at start');
  assert.ok(samples(text, 'process_cpu_user_seconds_total').length > 0, "Node's process metrics too");
});

test('the public listener answers /metrics with the contract 404 JSON', async () => {
  const res = await request(server, { path: '/metrics' });
  assert.equal(res.status, 404);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(res.json, {
    error: { message: 'No such resource: the API is GET /v1/meals (see /v1/openapi.json).', code: 'not_found' },
  });
});

test('the admin listener serves /metrics only, on 127.0.0.1 only', async (t) => {
  assert.equal((await scrape(server.adminUrl, '/')).status, 404);
  assert.equal((await scrape(server.adminUrl, '/v1/meals')).status, 404);
  const port = Number(new URL(server.adminUrl ?? '').port);
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
  if (external === undefined) {
    t.skip('this machine has no non-loopback IPv4 address to try');
    return;
  }
  const refused = await new Promise<boolean>((resolve) => {
    http
      .get({ host: external.address, port, path: '/metrics', agent: false, timeout: 5_000 }, (res) => {
        res.resume();
        resolve(false);
      })
      .on('error', () => resolve(true))
      .on('timeout', () => resolve(true));
  });
  assert.equal(refused, true, `nothing answers /metrics on ${external.address}:${port}`);
});
