import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomId } from '../domain/random-id.js';
import type { TextSink } from './meal-export.js';

/**
 * Writes a file so that readers see the old file or the whole new one, never a part: the data
 * goes to a temporary file in the same folder (same file system, so rename is atomic), is
 * flushed to disk, then renamed over the target. On failure the temporary file is removed.
 */
export async function writeFileAtomically<T>(target: string, produce: (sink: TextSink) => Promise<T>): Promise<T> {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomId('', 10)}.tmp`);
  const handle = await open(temporary, 'wx');
  let renamed = false;
  try {
    const result = await produce({
      async write(text) {
        await handle.write(text);
        return true;
      },
    });
    await handle.sync();
    await handle.close();
    await rename(temporary, target);
    renamed = true;
    return result;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await unlink(temporary).catch(() => undefined);
    }
  }
}
