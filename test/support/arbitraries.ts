import fc from 'fast-check';

/** Generated cases per property, unless a property says otherwise. */
export const RUNS = { numRuns: 500 };

/** The last instant the contract can write (`YYYY-MM-DDTHH:mm:ss.sssZ`, four-digit years). */
export const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Epoch milliseconds of any instant from year 1 to year 9999. */
export const instantMs = fc.integer({ min: Date.parse('0001-01-01T00:00:00.000Z'), max: LAST_MS });
