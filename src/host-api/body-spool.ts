import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { once } from 'node:events';
import { AppError } from '../errors.js';
import { notUtf8 } from './host-body.js';

/** A body kept in memory up to this size; past it, in a temporary file. */
const IN_MEMORY_BYTES = 1024 * 1024;

/** A whole request body, received: read it as text as often as needed, then discard it. */
export interface SpooledBody {
  /** The body's UTF-8 text, in pieces. */
  text(): AsyncIterable<string>;
  /** Removes its temporary file, if it has one. */
  discard(): Promise<void>;
}

export interface SpoolLimits {
  /** The largest body taken. */
  readonly maxBytes: number;
  /** The refusal of a larger one (413). */
  readonly tooLarge: () => AppError;
}

async function* decoded(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  // Checked as it was spooled: no byte here is not UTF-8.
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const last = decoder.decode();
  if (last !== '') yield last;
}

async function* memoryChunks(chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  yield* chunks;
}

async function write(file: WriteStream, chunk: Buffer): Promise<void> {
  if (!file.write(chunk)) await once(file, 'drain');
}

async function closed(file: WriteStream): Promise<void> {
  if (file.closed) return;
  await new Promise<void>((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/**
 * Receives a whole body before anything is written with it (docs/host-api.md#importing-many-meals):
 * a client that sends slowly then holds no store lock while the network waits. Its bytes are
 * checked as UTF-8 as they come (`400 bad_request` at the first bad one) and refused past
 * `maxBytes`; the request bound passing is the stream's own 408, and a client that left is a 400.
 */
export async function spoolBody(stream: Readable, limits: SpoolLimits): Promise<SpooledBody> {
  const checker = new TextDecoder('utf-8', { fatal: true });
  const check = (chunk?: Buffer) => {
    try {
      if (chunk === undefined) checker.decode();
      else checker.decode(chunk, { stream: true });
    } catch {
      throw notUtf8();
    }
  };
  const memory: Buffer[] = [];
  let bytes = 0;
  let folder: string | undefined;
  let file: WriteStream | undefined;
  const discard = async () => {
    if (file !== undefined) await closed(file).catch(() => undefined);
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) throw limits.tooLarge();
      check(chunk);
      if (file === undefined && bytes <= IN_MEMORY_BYTES) {
        memory.push(chunk);
        continue;
      }
      if (file === undefined) {
        folder = await mkdtemp(join(tmpdir(), 'meal-export-body-'));
        file = createWriteStream(join(folder, 'body'));
        for (const kept of memory.splice(0)) await write(file, kept);
      }
      await write(file, chunk);
    }
    check();
    if (file !== undefined) await closed(file);
  } catch (error) {
    await discard();
    if (error instanceof AppError) throw error;
    // The client left before the body's end: the answer goes nowhere, and this is no failure
    // of the service's (a 400, not a 500 with an error in the log).
    throw new AppError('bad_request', 'The body ended early: the client left before sending it whole.', {
      headers: { connection: 'close' },
      cause: error,
    });
  }
  const path = folder === undefined ? undefined : join(folder, 'body');
  return {
    text: () => decoded(path === undefined ? memoryChunks(memory) : (createReadStream(path) as AsyncIterable<Buffer>)),
    discard,
  };
}
