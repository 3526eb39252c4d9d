import { formatInstant } from './instant.js';

/**
 * The response header of every 200 of GET and HEAD /v1/meals that carries the user's change
 * clock as of the page's snapshot: the modifiedAt of the user's newest change of any kind,
 * absent while there is none. A client that has read a full pass follows the changes from
 * exactly this + 1 ms, as the pass's first page gave it, missing none and downloading nothing
 * twice but what really changed during the pass (docs/api.md). Lower case, as Node gives
 * header names.
 */
export const MEALS_LAST_MODIFIED = 'meals-last-modified';

/**
 * The response header of every 200 of GET and HEAD /v1/meals whose hasMore is false: the
 * digest of the user's live meals in the page's snapshot (domain/meals-digest.ts), so a copy
 * that applied the page can prove itself (docs/api.md#verifying-a-copy-meals-digest).
 */
export const MEALS_DIGEST = 'meals-digest';

/**
 * The 200 body of GET /v1/meals (docs/api.md#the-call): exactly seven fields in this order,
 * as three parts to be sent one after the other: the head, the meals, the tail. `items` are
 * the stored JSON texts already joined by commas as UTF-8 bytes: they are sent as they are,
 * never parsed, re-serialised, re-encoded or even copied into one body (a first sync's page
 * is megabytes).
 */
export function renderMealPage(
  userId: string,
  lastModifiedSince: number,
  items: Buffer,
  count: number,
  hasMore: boolean,
  nextCursor: string | null,
): readonly [head: Buffer, items: Buffer, tail: Buffer] {
  const head = `{"ok":true,"userId":${JSON.stringify(userId)},"lastModifiedSince":"${formatInstant(lastModifiedSince)}","count":${count},"meals":[`;
  const tail = `],"hasMore":${hasMore},"nextCursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`;
  return [Buffer.from(head), items, Buffer.from(tail)];
}
