import type { FeedPosition } from '../domain/meal.js';
import {
  DEFAULT_LIMIT,
  FINAL_READ_SECONDS,
  MAX_LIMIT,
  MAX_WAIT_SECONDS,
  PROXY_IDLE_TIMEOUT_SECONDS,
} from '../domain/page-bounds.js';
import { checkedText, exactBoolean, type QueryParameterRule, requiredInstant, wholeNumber } from './query-rule.js';

/**
 * The query parameters of GET /v1/meals (docs/api.md#the-call), each rule written once: the
 * parser (meals-query.ts) reads them and the OpenAPI document (schemas.ts) describes them from
 * this table. Its order is the order in which the first parameter at fault is named
 * (docs/errors.md#errors), and the order the document lists them in.
 */

/** What the request brings to judge its parameters with. */
export interface MealsQueryContext {
  /** The cursor's position when it is one of the key's user's; undefined refuses it. */
  readonly decodeCursor: (cursor: string) => FeedPosition | undefined;
}

export const MEALS_QUERY_RULES = {
  lastModifiedSince: requiredInstant({
    description:
      'Meals with modifiedAt at or after this instant. RFC 3339 date-time with Z or ±hh:mm (none: UTC), 0-9 fraction digits (truncated to ms), or a date YYYY-MM-DD (midnight UTC); years 0000 to 9999. A text of this pattern that is no date (2025-02-30) is refused too.',
    examples: ['2025-01-01T00:00:00Z', '2025-01-01'],
    missing: 'lastModifiedSince is required: an ISO 8601 date-time such as 2025-01-01T00:00:00Z.',
    invalid:
      'lastModifiedSince must be an ISO 8601 date-time with Z or an offset (2025-01-01T00:00:00Z), or a date (2025-01-01).',
  }),
  limit: wholeNumber({
    minimum: 1,
    maximum: MAX_LIMIT,
    default: DEFAULT_LIMIT,
    description: `At most this many meals (ASCII digits, 1 to ${MAX_LIMIT}; never clamped).`,
    invalid: `limit must be a whole number from 1 to ${MAX_LIMIT}.`,
  }),
  cursor: checkedText({
    read: (text: string, { decodeCursor }: MealsQueryContext) => decodeCursor(text),
    description:
      'A nextCursor from an earlier response: the meals strictly after it. lastModifiedSince filters too: the page starts at the later of the two.',
    invalid: "cursor is not valid: send a nextCursor from an earlier response for this key's user.",
  }),
  includeDeleted: exactBoolean({
    default: false,
    description:
      'true: deleted meals come as tombstones and live meals carry deleted: false. Written exactly true or false.',
    invalid: 'includeDeleted must be true or false.',
  }),
  wait: wholeNumber({
    minimum: 1,
    maximum: MAX_WAIT_SECONDS,
    description: `Long poll: when the page would hold no meal, hold the request for up to this many seconds (ASCII digits, 1 to ${MAX_WAIT_SECONDS}) and answer within 1 s of the commit of a change that belongs in it, with the page as it then stands; after the wait with no such change, the empty page. A page with meals is answered at once. One request for the rate limits, counted when accepted; a newer accepted request of the same key answers a held one at once. A proxy in front needs an idle timeout above ${PROXY_IDLE_TIMEOUT_SECONDS} s: the longest wait plus up to ${FINAL_READ_SECONDS} s to read the page at its end.`,
    invalid: `wait must be a whole number of seconds from 1 to ${MAX_WAIT_SECONDS}.`,
  }),
} satisfies Record<string, QueryParameterRule<unknown, MealsQueryContext>>;

export type MealsQueryParameter = keyof typeof MEALS_QUERY_RULES;

/** The parameters' names, in the table's order. */
export const MEALS_QUERY_PARAMETERS = Object.keys(MEALS_QUERY_RULES) as readonly MealsQueryParameter[];
