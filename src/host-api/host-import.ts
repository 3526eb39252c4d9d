import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { importHostRecords } from '../host/host-import-records.js';
import type { MealWrites } from '../storage/meal-writes.js';
import { MAX_IMPORT_BYTES, streamedBody } from './host-body.js';
import { refusalError } from './host-errors.js';
import type { WriteLane } from './write-lane.js';

/**
 * Where an import writes. On SQLite, a handle of its own, opened on first use: its transaction
 * stays open while the body streams in, and the serving handle must go on answering reads meanwhile
 * (a handle inside an import's transaction refuses every other call: storage/sqlite/sqlite-call-policy.ts).
 */
export interface ImportStore {
  writes(): Promise<Pick<MealWrites, 'importMeals'>>;
  close(): Promise<void>;
}

const tooLarge = () =>
  new AppError('request_too_large', `The import is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MiB.`, {
    status: 413,
    headers: { connection: 'close' },
  });

/** The body's text as it streams in, refused past 64 MiB, and not UTF-8 refused as 400. */
async function* bodyText(stream: Readable): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  const decode = (chunk?: Buffer) => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw new AppError('bad_request', 'The body is not UTF-8 text.', { headers: { connection: 'close' } });
    }
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > MAX_IMPORT_BYTES) throw tooLarge();
      const text = decode(chunk);
      if (text !== '') yield text;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The client left, or the request's 30 s ran out, before the body's end: its import is
    // rolled back like any other; the answer goes nowhere, and this is no failure of ours.
    throw new AppError('bad_request', 'The body ended early: the client left, or the request took over 30 s.', {
      headers: { connection: 'close' },
      cause: error,
    });
  }
  const last = decode();
  if (last !== '') yield last;
}

/**
 * `POST /host/v1/users/{userId}/meals/import` (docs/host-api.md#importing-many-meals): the body's
 * records written in one transaction as they stream in, all or nothing, by the rules of
 * `meals import` (host/host-import-records.ts).
 */
export async function importRecords(request: FastifyRequest, userId: string, store: ImportStore, lane: WriteLane) {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_IMPORT_BYTES) throw tooLarge();
  const stream = streamedBody(request);
  const writes = await store.writes();
  const outcome = await lane(() =>
    importHostRecords(bodyText(stream), (batches) => writes.importMeals(userId, batches, Date.now())),
  );
  if (!outcome.ok) throw refusalError(outcome, outcome.line);
  const { imported, created, updated, unchanged, stale } = outcome;
  return { imported, created, updated, unchanged, stale };
}
