import { formatInstant } from './instant.js';

/**
 * The 200 body of GET /v1/meals (CONTRACT.md section 2): exactly seven fields in this order,
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
