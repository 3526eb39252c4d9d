import { formatInstant } from './instant.js';

/**
 * The 200 body of GET /v1/meals (CONTRACT.md section 2): exactly seven fields in this order.
 * The items are stored JSON texts, joined as they are, never parsed or re-serialised.
 */
export function renderMealPage(
  userId: string,
  lastModifiedSince: number,
  items: readonly string[],
  hasMore: boolean,
  nextCursor: string | null,
): string {
  return `{"ok":true,"userId":${JSON.stringify(userId)},"lastModifiedSince":"${formatInstant(lastModifiedSince)}","count":${items.length},"meals":[${items.join(',')}],"hasMore":${hasMore},"nextCursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`;
}
