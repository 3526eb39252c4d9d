import type { ServerResponse } from 'node:http';

/** Bodies above this go out in slices of this size, each once the one before was taken. */
export const SLICE_BYTES = 256 * 1024;

/**
 * Emitted on the response when its first slice is written: from then on the stalled-reader
 * watch (listener/stalled-answers.ts) looks at it, as it looks at a whole answer from 'prefinish'.
 */
export const SENDING_IN_SLICES = 'meal-export:sending-in-slices';

/**
 * Writes `parts` in slices of SLICE_BYTES (views, no copy), each once the socket took the one
 * before, then ends the response. Written at once, a page of 5000 meals (1.6 MB) is encrypted
 * whole by TLS and its ciphertext waits in the connection's own buffers until the client reads
 * it, buffers each connection then keeps: 50 clients reading such pages held ≈ 70 MB more than
 * in slices (bench/RESULTS.md, "Pages of thousands in slices"). Stops when the client leaves; a
 * client that stops reading is cut as for any answer (listener/stalled-answers.ts).
 */
export async function writeInSlices(response: ServerResponse, parts: readonly Buffer[]): Promise<void> {
  let first = true;
  // A slice's callback may never come once the connection is gone: its close ends the wait too.
  const closed = new Promise<void>((resolve) => response.once('close', () => resolve()));
  for (const part of parts) {
    for (let at = 0; at < part.length; at += SLICE_BYTES) {
      if (response.destroyed) return;
      const taken = new Promise<void>((resolve) => {
        response.write(part.subarray(at, at + SLICE_BYTES), () => resolve());
      });
      if (first) response.emit(SENDING_IN_SLICES);
      first = false;
      await Promise.race([taken, closed]);
    }
  }
  if (!response.destroyed) response.end();
}
