import assert from 'node:assert/strict';
import https from 'node:https';
import { connect as netConnect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeMeal, newUserId } from './fresh-records.js';
import { keyedGetOptions } from './https-request.js';
import type { ServedApp, TestServer } from './server.js';

// A large answer held unread by its client, for the tests of what a server does meanwhile
// (connection limits, shutdown).

/**
 * A new user with a key and 5000 meals whose descriptions repeat a sentence `repeats` times:
 * 100 makes a page of all of them about 16 MB, far more than the kernel's socket buffers hold
 * for a reader that has stopped, so most of the answer stays in the server process.
 */
export async function userWithLargePage(server: ServedApp, repeats = 100): Promise<{ userId: string; key: string }> {
  const userId = newUserId('large');
  const { key } = await server.createKey(userId);
  const description = 'a long description of the meal, '.repeat(repeats);
  await server.importMeals(
    userId,
    Array.from({ length: 5000 }, () => makeMeal(undefined, { description })),
  );
  return { userId, key };
}

/** Opens a GET with its key and stops reading the answer as soon as its headers arrive. */
export function pausedGet(server: ServedApp, key: string, path: string) {
  return pausedRequest(keyedGetOptions(server, key, path));
}

/** Sends the request and stops reading its answer as soon as the headers arrive (any listener's). */
export function pausedRequest(options: https.RequestOptions | URL) {
  return new Promise<{ status: number; readAll: () => Promise<string> }>((resolve, reject) => {
    const req = https.request(options, (res) => {
      res.pause();
      resolve({
        status: res.statusCode ?? 0,
        readAll: () =>
          new Promise((done, fail) => {
            const chunks: Buffer[] = [];
            res.on('data', (d: Buffer) => chunks.push(d));
            res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
            res.on('error', fail);
            res.resume();
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * SIGTERM while a client holds a 5000-meal answer of about 16 MB unread (userWithLargePage):
 * checks that no new connection is accepted once it has arrived, then reads the answer to its
 * end. Resolves the answer's text and the server's exit code, for the caller's checks.
 */
export async function sigtermWithAnswerInFlight(
  server: TestServer,
): Promise<{ text: string; exitCode: number | null }> {
  const { key } = await userWithLargePage(server);
  const inFlight = await pausedGet(server, key, '/v1/meals?lastModifiedSince=2025-01-01T00:00:00Z&limit=5000');
  assert.equal(inFlight.status, 200);
  const exited = server.stop();
  await sleep(500);
  assert.equal(await refused(server.port), true, 'no new connection is accepted once SIGTERM arrived');
  const text = await inFlight.readAll();
  return { text, exitCode: await exited };
}

/** Resolves true when a TCP connection to the port is refused. */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });
}
