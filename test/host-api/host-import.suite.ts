import assert from 'node:assert/strict';
import https from 'node:https';
import { describe, test } from 'node:test';
import { USER_PIECE_RECORDS } from '../../src/meals-io/all-users-import.js';
import { type HostApiServer, hostCall, hostRecord, mealPath } from '../support/host-api.js';
import { newUserId, type TestResponse } from '../support/server.js';

const NDJSON = { 'content-type': 'application/x-ndjson' };

function lines(records: readonly object[]): string {
  return `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
}

function importPath(userId: string): string {
  return `/host/v1/users/${encodeURIComponent(userId)}/meals/import`;
}

async function importLines(server: HostApiServer, userId: string, body: string): Promise<TestResponse> {
  return hostCall(server, { method: 'POST', path: importPath(userId), body, headers: NDJSON });
}

/** Sends `chunks` as a chunked body (no Content-Length) and resolves the status and body. */
function streamChunks(server: HostApiServer, path: string, chunks: () => Iterable<Buffer>) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = https.request(
      {
        ...server.hostApi,
        method: 'POST',
        path,
        headers: { ...NDJSON, authorization: `Bearer ${server.token}` },
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    // The server may answer and close before every chunk is sent: that is the point.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    const iterator = chunks()[Symbol.iterator]();
    const pump = () => {
      for (let step = iterator.next(); step.done !== true; step = iterator.next()) {
        if (!req.write(step.value)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/** The streamed JSON Lines import: one transaction, all or nothing, on the store `open` serves. */
export function hostImportRules(name: string, open: () => HostApiServer) {
  describe(`${name}: import`, () => {
    test('imports records with their ids and versions, counting created, updated, unchanged and stale', async () => {
      const server = open();
      const userId = newUserId('import');
      // Meal ids are unique across users: this test's own.
      const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((x) => `${userId}-${x}`) as [string, string, string, string];
      await hostCall(server, { method: 'PUT', path: mealPath(userId, b), json: hostRecord({ sourceVersion: 9 }) });
      await hostCall(server, { method: 'PUT', path: mealPath(userId, c), json: hostRecord() });
      const body = lines([
        { id: a, ...hostRecord({ sourceVersion: 1 }) },
        { id: b, ...hostRecord({ title: 'older', sourceVersion: 8 }) },
        { id: c, ...hostRecord() },
        { id: d, ...hostRecord({ type: 'snack' }) },
        { id: c, ...hostRecord({ title: 'changed' }) },
      ]);
      const res = await importLines(server, userId, body);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json, { imported: 5, created: 2, updated: 1, unchanged: 1, stale: 1 });
      assert.equal(
        ((await hostCall(server, { path: mealPath(userId, b) })).json as { title: string }).title,
        'Porridge',
      );
      assert.equal(
        ((await hostCall(server, { path: mealPath(userId, c) })).json as { title: string }).title,
        'changed',
      );
    });

    test('a bad line is 422 with its line number and field, and nothing of the body is written', async () => {
      const server = open();
      const userId = newUserId('bad-line');
      const records = [
        { id: 'ok1', ...hostRecord() },
        { id: 'ok2', ...hostRecord({ type: 'tea' }) },
      ];
      const res = await importLines(server, userId, lines(records));
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(
        [(res.json as { error: { code: string; line: number; param: string } }).error].map((e) => [
          e.code,
          e.line,
          e.param,
        ]),
        [['invalid_record', 2, 'type']],
      );
      const missingId = await importLines(server, userId, lines([{ id: 'ok1', ...hostRecord() }, hostRecord()]));
      assert.equal(missingId.status, 422, missingId.text);
      assert.deepEqual((missingId.json as { error: object }).error, {
        message: 'Line 2: id is required.',
        code: 'invalid_record',
        param: 'id',
        line: 2,
      });
      const notJson = await importLines(server, userId, `${JSON.stringify({ id: 'ok1', ...hostRecord() })}\n{oops\n`);
      assert.equal(notJson.status, 422, notJson.text);
      assert.equal((notJson.json as { error: { line: number } }).error.line, 2);
      assert.equal((await hostCall(server, { path: mealPath(userId, 'ok1') })).status, 404, 'nothing was written');
    });

    test("an id of another user's is 409 id_taken with its line; nothing written", async () => {
      const server = open();
      const [owner, other] = [newUserId('owner'), newUserId('thief')];
      await hostCall(server, { method: 'PUT', path: mealPath(owner, 'mine'), json: hostRecord() });
      const res = await importLines(
        server,
        other,
        lines([
          { id: 'fresh', ...hostRecord() },
          { id: 'mine', ...hostRecord() },
        ]),
      );
      assert.equal(res.status, 409, res.text);
      const error = (res.json as { error: { code: string; line: number; message: string } }).error;
      assert.deepEqual([error.code, error.line], ['id_taken', 2]);
      assert.equal(error.message, 'Line 2: id "mine" belongs to another user.');
      assert.equal((await hostCall(server, { path: mealPath(other, 'fresh') })).status, 404);
    });

    test("lines a GET answered import as they are; deleted true and a utcOffset unlike the date's are refused by line", async () => {
      const server = open();
      const userId = newUserId('read-back-import');
      const mealId = `${userId}-m`;
      await hostCall(server, { method: 'PUT', path: mealPath(userId, mealId), json: hostRecord() });
      const read = (await hostCall(server, { path: mealPath(userId, mealId) })).json as Record<string, unknown>;
      const res = await importLines(server, userId, lines([read, { ...read, id: `${mealId}-2`, title: 'Copy' }]));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json, { imported: 2, created: 1, updated: 0, unchanged: 1, stale: 0 });
      const refusals: Array<[object, string, string]> = [
        [
          { ...read, deleted: true },
          'deleted',
          'Line 2: deleted must be false or absent (a delete removes a meal), got true.',
        ],
        [
          { ...read, date: '2025-03-01T10:00:00+01:00', utcOffset: '+05:30' },
          'utcOffset',
          'Line 2: utcOffset must be the offset written in date (+01:00), or absent, got "+05:30".',
        ],
      ];
      for (const [record, param, message] of refusals) {
        const refused = await importLines(server, userId, lines([{ ...read, title: 'Not written' }, record]));
        assert.equal(refused.status, 422, refused.text);
        assert.deepEqual(refused.json, { error: { message, code: 'invalid_record', param, line: 2 } });
      }
      const kept = (await hostCall(server, { path: mealPath(userId, mealId) })).json as Record<string, unknown>;
      assert.equal(kept.title, read.title, 'nothing of a refused import is written');
    });

    test('the import takes JSON Lines only; an empty body imports nothing', async () => {
      const server = open();
      const userId = newUserId('types');
      const asJson = await hostCall(server, { method: 'POST', path: importPath(userId), json: [hostRecord()] });
      assert.equal(asJson.status, 400, asJson.text);
      const empty = await importLines(server, userId, '');
      assert.deepEqual(empty.json, { imported: 0, created: 0, updated: 0, unchanged: 0, stale: 0 });
    });

    test('over 64 MiB: 413, whether announced by Content-Length or found while streaming, and nothing written', async () => {
      const server = open();
      const userId = newUserId('huge');
      const line = Buffer.from(
        `${JSON.stringify({ id: 'x', ...hostRecord({ description: 'y'.repeat(64 * 1024) }) })}\n`,
      );
      const announced = await hostCall(server, {
        method: 'POST',
        path: importPath(userId),
        headers: { ...NDJSON, 'content-length': String(65 * 1024 * 1024) },
        body: '',
      }).catch((error: unknown) => error);
      // Node refuses to send a body shorter than announced: the answer came before it mattered.
      if (!(announced instanceof Error)) assert.equal((announced as TestResponse).status, 413);
      const lineCount = Math.ceil((65 * 1024 * 1024) / line.length);
      const streamed = await streamChunks(server, importPath(userId), function* () {
        for (let i = 0; i < lineCount; i += 1) {
          yield Buffer.from(line.toString('utf8').replace('"id":"x"', `"id":"m${i}"`));
        }
      });
      assert.equal(streamed.status, 413, streamed.text);
      assert.equal((await hostCall(server, { path: mealPath(userId, 'm0') })).status, 404, 'nothing was written');
    });

    test("the app's history: every user's lines, committed in batches of whole users; a bad line keeps the batches before it", async () => {
      const server = open();
      const [first, second, third] = [newUserId('history'), newUserId('history'), newUserId('history')];
      const record = (userId: string, id: string, fields: Record<string, unknown> = {}) => ({
        userId,
        id,
        ...hostRecord(fields),
      });
      // A piece's worth of lines of the first user: one batch, whole (a batch is cut where the
      // user changes, a user past USER_PIECE_RECORDS lines in pieces of that many).
      const firstLines = Array.from({ length: USER_PIECE_RECORDS }, (_, n) => record(first, `${first}-m${n}`));
      const body = [
        ...firstLines,
        record(second, `${second}-a`),
        record(third, `${third}-a`, { caloriesTotal: 'lots' }),
      ];
      const stopped = await hostCall(server, {
        method: 'POST',
        path: '/host/v1/meals/import',
        body: lines(body),
        headers: NDJSON,
      });
      assert.equal(stopped.status, 422, stopped.text);
      assert.deepEqual(stopped.json, {
        error: {
          code: 'invalid_record',
          message: `Line ${USER_PIECE_RECORDS + 2}: caloriesTotal must be a number or null, got "lots". ${USER_PIECE_RECORDS} records before it were committed (through line ${USER_PIECE_RECORDS}): send the same lines again once it is fixed.`,
          param: 'caloriesTotal',
          line: USER_PIECE_RECORDS + 2,
        },
      });
      assert.equal(
        (await hostCall(server, { path: mealPath(first, `${first}-m${USER_PIECE_RECORDS - 1}`) })).status,
        200,
        'the first batch stays',
      );
      assert.equal(
        (await hostCall(server, { path: mealPath(second, `${second}-a`) })).status,
        404,
        'its own batch did not',
      );

      const fixed = body.map((line, n) => (n === body.length - 1 ? record(third, `${third}-a`) : line));
      const again = await hostCall(server, {
        method: 'POST',
        path: '/host/v1/meals/import',
        body: lines(fixed),
        headers: NDJSON,
      });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.json, {
        imported: USER_PIECE_RECORDS + 2,
        created: 2,
        updated: 0,
        unchanged: USER_PIECE_RECORDS,
        stale: 0,
        batches: 2,
      });

      const foreign = await hostCall(server, {
        method: 'POST',
        path: '/host/v1/meals/import',
        body: lines([record(third, `${first}-m0`)]),
        headers: NDJSON,
      });
      assert.equal(foreign.status, 409, foreign.text);
      assert.equal((foreign.json as { error: { line: number } }).error.line, 1);
      const noUser = await hostCall(server, {
        method: 'POST',
        path: '/host/v1/meals/import',
        body: lines([{ id: 'x', ...hostRecord() }]),
        headers: NDJSON,
      });
      assert.equal(noUser.status, 422, noUser.text);
      assert.equal((noUser.json as { error: { param: string } }).error.param, 'userId');
    });
  });
}
