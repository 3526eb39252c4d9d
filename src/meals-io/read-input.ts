import { open, readFile } from 'node:fs/promises';
import { CliError } from '../errors.js';

const READ_FAULTS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
};

/** A file opened, or stdin; a folder is refused here rather than at its first read. */
async function openInput(location: string): Promise<AsyncIterable<Buffer | string>> {
  if (location === '-') return process.stdin;
  const file = await open(location);
  if ((await file.stat()).isDirectory()) {
    await file.close();
    throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  }
  // Node's pieces of 64 KiB: with pieces of 1 MiB an import was 25 % slower and held 20-40 MiB
  // more at its peak, the records of a piece being checked together (bench/RESULTS.md, "Two batches at once").
  return file.createReadStream();
}

function readFault(location: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = (code && READ_FAULTS[code]) ?? (error instanceof Error ? error.message : String(error));
  return new CliError(`cannot read ${location === '-' ? 'stdin' : location}: ${reason}`, { cause: error });
}

/**
 * The text of an input file, or of stdin for `-`, in pieces as it is read: an import holds one
 * piece at a time, whatever the file's size (docs/cli.md#memory-and-locking). The file is opened
 * before this resolves, so that a missing one is reported before the store is opened. It must be
 * UTF-8 (a byte order mark is dropped): anything else would be stored as replacement characters
 * without a word. A read failure or a byte that is not UTF-8 ends the reading with a CliError.
 */
export async function openInputPieces(location: string): Promise<AsyncGenerator<string>> {
  try {
    return readPieces(location, await openInput(location));
  } catch (error) {
    throw readFault(location, error);
  }
}

async function* readPieces(location: string, input: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (bytes?: Buffer | string) => {
    try {
      if (bytes === undefined) return decoder.decode();
      return decoder.decode(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, { stream: true });
    } catch (error) {
      throw new CliError(`${location === '-' ? 'stdin' : location} is not UTF-8 text`, { cause: error });
    }
  };
  const chunks = input[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Buffer | string>;
      try {
        next = await chunks.next();
      } catch (error) {
        throw readFault(location, error);
      }
      if (next.done === true) break;
      const text = decode(next.value);
      if (text !== '') yield text;
    }
  } finally {
    // Stopped early (a failed write): the file is closed.
    await chunks.return?.();
  }
  const last = decode();
  if (last !== '') yield last;
}

/** A file's text, or undefined when there is no such file (a first run: nothing saved yet). */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
