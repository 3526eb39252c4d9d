import { formatInstant } from './instant.js';

/**
 * The 200 body of GET /v1/meals (CONTRACT.md section 2): exactly seven fields in this order.
 * `items` are the stored JSON texts already joined by commas as UTF-8 bytes: they are copied
 * into the body as they are, never parsed, re-serialised or re-encoded.
 */
export function renderMealPage(
  userId: string,
  lastModifiedSince: number,
  items: Buffer,
  count: number,
  hasMore: boolean,
  nextCursor: string | null,
): Buffer {
  const head = `{"ok":true,"userId":${JSON.stringify(userId)},"lastModifiedSince":"${formatInstant(lastModifiedSince)}","count":${count},"meals":[`;
  const tail = `],"hasMore":${hasMore},"nextCursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`;
  const headLength = Buffer.byteLength(head);
  const tailLength = Buffer.byteLength(tail);
  const body = Buffer.allocUnsafe(headLength + items.length + tailLength);
  body.write(head, 0);
  items.copy(body, headLength);
  body.write(tail, headLength + items.length);
  return body;
}
