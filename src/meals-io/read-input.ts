import { readFile } from 'node:fs/promises';
import { CliError } from '../errors.js';

const READ_FAULTS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
};

/** The whole of stdin: an import is checked in full before anything is written. */
async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * The text of an input file, or of stdin for `-`. It must be UTF-8 (a byte order mark is
 * dropped): anything else would be stored as replacement characters without a word.
 */
export async function readInputText(location: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = location === '-' ? await readStdin() : await readFile(location);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = (code && READ_FAULTS[code]) ?? (error instanceof Error ? error.message : String(error));
    throw new CliError(`cannot read ${location === '-' ? 'stdin' : location}: ${reason}`, { cause: error });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new CliError(`${location === '-' ? 'stdin' : location} is not UTF-8 text`, { cause: error });
  }
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
