import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { CliError } from '../errors.js';
import type { TextSink } from './meal-export.js';

/**
 * A sink on stdout that waits when the pipe is full and stops quietly when the reader has
 * gone (EPIPE, as with `meal-export meals export ... | head`): that is not a failure of the
 * export, and Node would otherwise crash on the unhandled 'error' event.
 */
export function createStdoutSink(stream: Writable = process.stdout): TextSink {
  let closed = false;
  let failure: Error | undefined;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') closed = true;
    else failure = error;
  });
  const check = (): boolean => {
    if (failure !== undefined) throw new CliError(`cannot write to stdout: ${failure.message}`, { cause: failure });
    return !closed;
  };
  return {
    async write(text) {
      if (!check()) return false;
      if (!stream.write(text)) {
        const abort = new AbortController();
        // Whichever comes first: room in the pipe, or the pipe gone.
        await Promise.race([once(stream, 'drain', abort), once(stream, 'close', abort)]).catch(() => undefined);
        abort.abort();
      }
      return check();
    },
  };
}
