import { AppError } from '../../errors.js';
import type { CallPolicy, CallTrait } from '../guarded-concerns.js';
import { storageUnavailable } from '../unavailable.js';
import { isDiskFull, isUnavailable } from './postgres-errors.js';

/**
 * How long one call may take before the caller gets `503 unavailable`: a server that stopped
 * answering (a network cut, a hung host) must not hold requests until TCP gives up.
 */
export const CALL_DEADLINE_MS = 5_000;

function unavailable(error: unknown): AppError {
  return storageUnavailable(error, isDiskFull(error) ? 'disk_full' : 'unreachable');
}

/** A driver failure as the caller should see it: "cannot reach the store" is a 503; other errors are bugs. */
export function reported(error: unknown): unknown {
  if (error instanceof AppError) return error;
  return isUnavailable(error) ? unavailable(error) : error;
}

async function withinDeadline(work: () => unknown): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(unavailable(new Error(`no answer within ${CALL_DEADLINE_MS} ms`))),
      CALL_DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Every call of a PostgreSQL handle: driver failures mapped, and a deadline on every call but
 * the `long` ones, which may rightly outlast it (a deadline there would report a failure for a
 * transaction that then commits). A claim of webhook events reported failed that commits after
 * the deadline leaves its events leased until the lease runs out, as a sender's crash would.
 */
export const POSTGRES_CALL_POLICY: CallPolicy = {
  async run(traits: ReadonlySet<CallTrait>, work: () => unknown): Promise<unknown> {
    try {
      return await (traits.has('long') ? work() : withinDeadline(work));
    } catch (error) {
      throw reported(error);
    }
  },
  streamError: reported,
};
