import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { describeUsersImportStop, importUsersStream } from '../meals-io/all-users-import.js';
import { readUsersMealFile } from '../meals-io/users-meal-file.js';
import { importHostRecords } from '../meal-host/host-import-records.js';
import type { MealWrites } from '../storage/meal-writes.js';
import { MAX_IMPORT_BYTES, streamedBody } from './host-body.js';
import { spoolBody } from './body-spool.js';
import { refusalError } from './host-api-errors.js';

/**
 * Where an import writes. On SQLite, a handle of its own, opened on first use: its transaction
 * spans the batches of a large body, and the serving handle must go on answering reads meanwhile
 * (a handle inside an import's transaction refuses every other call: storage/sqlite/sqlite-call-policy.ts).
 */
export interface ImportStore {
  writes(): Promise<Pick<MealWrites, 'importMeals' | 'importUsersBatch'>>;
  close(): Promise<void>;
}

/** The refusal of an import over 64 MiB, declared or streamed: nothing of it is written. */
const tooLarge = () =>
  new AppError('request_too_large', `The import is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MiB.`, {
    status: 413,
  });

/**
 * `POST /host/v1/users/{userId}/meals/import` (docs/host-api.md#importing-many-meals): its
 * records written in one short transaction, all or nothing, by the rules of `meals import`
 * (meal-host/host-import-records.ts).
 */
export async function importRecords(request: FastifyRequest, userId: string, store: ImportStore) {
  return withImportBody(request, store, async (text, writes) => {
    const outcome = await importHostRecords(text, (batches) => writes.importMeals(userId, batches, Date.now()));
    if (!outcome.ok) throw refusalError(outcome, outcome.line);
    const { imported, created, updated, unchanged, stale } = outcome;
    return { imported, created, updated, unchanged, stale };
  });
}

/**
 * `POST /host/v1/meals/import` (docs/host-api.md#importing-the-apps-history): every user's
 * records, each naming its user, committed in batches of whole users as `meals import
 * --all-users` commits them (meals-io/all-users-import.ts); a fault stops it, the batches
 * before it kept, and the message says how far they go.
 */
export async function importHistory(request: FastifyRequest, store: ImportStore) {
  return withImportBody(request, store, async (text, writes) => {
    const outcome = await importUsersStream(readUsersMealFile(text, 'jsonl', true), (records) =>
      writes.importUsersBatch(records, Date.now()),
    );
    if (!outcome.ok) {
      const message = describeUsersImportStop(outcome, 'send the same lines again');
      throw refusalError({ ok: false, reason: outcome.reason, message, field: outcome.field }, outcome.line);
    }
    const { imported, created, updated, unchanged, stale, batches } = outcome;
    return { imported, created, updated, unchanged, stale, batches };
  });
}

/**
 * An import's body received whole first (listener/body-guard.ts bounds how long that may
 * take), so that no write waits on a slow client, then handed to `work` as text.
 */
async function withImportBody<T>(
  request: FastifyRequest,
  store: ImportStore,
  work: (text: AsyncIterable<string>, writes: Awaited<ReturnType<ImportStore['writes']>>) => Promise<T>,
): Promise<T> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_IMPORT_BYTES) throw tooLarge();
  const body = await spoolBody(streamedBody(request), { maxBytes: MAX_IMPORT_BYTES, tooLarge });
  try {
    return await work(body.text(), await store.writes());
  } finally {
    await body.discard();
  }
}
