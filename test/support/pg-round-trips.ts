/**
 * Counts the round trips a PostgreSQL client makes, from the bytes it sends (PostgreSQL's
 * protocol, "Message Formats"): the messages after which it waits for the server. Sync ends a
 * query of the extended protocol, Flush a statement described before it is bound (an unnamed
 * statement's first trip, or a named one's first use), Query a simple query. Read as the store
 * receives them, so that no driver's own account is trusted.
 */

/** The first message of a connection has no type byte; these two codes ask for another such message. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const WAITING_TYPES = new Set(['S', 'H', 'Q']);

export interface RoundTripCount {
  /** Round trips counted so far, over every connection. */
  readonly total: number;
  /** An observer of one connection's bytes from the client (startTcpProxy's watchClient). */
  connection(): (chunk: Buffer) => void;
}

export function countRoundTrips(): RoundTripCount {
  let total = 0;
  return {
    get total() {
      return total;
    },
    connection() {
      let pending = Buffer.alloc(0);
      let started = false;
      return (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        for (;;) {
          const typed = started ? 1 : 0;
          if (pending.length < typed + 4) return;
          const length = pending.readInt32BE(typed);
          if (pending.length < typed + length) return;
          if (!started) {
            const code = length >= 8 ? pending.readInt32BE(4) : 0;
            started = code !== SSL_REQUEST && code !== GSSENC_REQUEST;
          } else if (WAITING_TYPES.has(String.fromCharCode(pending[0] ?? 0))) {
            total += 1;
          }
          pending = pending.subarray(typed + length);
        }
      };
    },
  };
}
