import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { BIN, cleanEnv, PROJECT_ROOT } from './project.js';

/** Writes `count` valid JSON Lines meal records (ids `<prefix>_<n>`) to `file`, streaming. */
export async function writeMealsFile(file: string, count: number, prefix: string): Promise<void> {
  const out = createWriteStream(file);
  const day = Date.UTC(2025, 2, 1);
  for (let i = 0; i < count; i += 1) {
    const line = `${JSON.stringify({
      id: `${prefix}_${i}`,
      title: `meal ${i}`,
      description: 'rice, beans and a salad',
      type: 'lunch',
      date: new Date(day + i * 60_000).toISOString(),
      caloriesTotal: 500 + (i % 100),
      proteins_g: 20,
    })}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** `meal-export meals import --user USER FILE --db DB` as a child process, running. */
export function startImport(
  db: string,
  userId: string,
  file: string,
): { child: ChildProcess; exited: Promise<number | null>; stderr(): string } {
  const child = spawn(process.execPath, [BIN, 'meals', 'import', '--user', userId, file, '--db', db, '--json'], {
    cwd: PROJECT_ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  child.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}
