import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root and its built command line (tests drive the real build in dist/). */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(PROJECT_ROOT, 'dist', 'bin.js');

/** A fresh folder under the system temp folder, removed by the returned function. */
export function makeTempDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `meal-export-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The environment for child processes: none of the developer's MEAL_EXPORT_* settings leak in. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('MEAL_EXPORT_') && name !== 'NODE_TEST_CONTEXT') env[name] = value;
  }
  return { ...env, ...extra };
}
