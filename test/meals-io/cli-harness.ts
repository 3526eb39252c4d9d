import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir as makeSupportTempDir } from '../support/project.js';

export { runCli } from '../support/cli.js';
export { BIN } from '../support/project.js';

/** A temporary folder with a helper to write files into it, removed by `remove()`. */
export function makeTempDir(): { readonly dir: string; file(name: string, text?: string): string; remove(): void } {
  const { dir, remove } = makeSupportTempDir('cli');
  return {
    dir,
    file(name, text) {
      const file = path.join(dir, name);
      if (text !== undefined) fs.writeFileSync(file, text);
      return file;
    },
    remove,
  };
}
