import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

/**
 * Where the server's time goes: the functions with the most self time in a V8 CPU profile
 * (`node --cpu-prof`, or `npm run bench -- --profile DIR`). Prints one line per function:
 * share of the busy samples, milliseconds, name and location; idle time is left out.
 *
 * Shares count samples rather than summing their time deltas: a thread descheduled by other
 * work on the machine gets one late sample with a long delta, which would charge the wait to
 * whatever frame it resumed in (often a syscall such as writev). Counting samples charges
 * only time spent running.
 *   node --import tsx bench/profile-summary.ts FILE_OR_DIR [--top 25]
 * Given a folder, it reads the newest .cpuprofile in it.
 */

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<{ readonly id: number; readonly callFrame: CallFrame }>;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function newestProfile(target: string): string {
  if (!statSync(target).isDirectory()) return target;
  const files = readdirSync(target)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(target, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  const newest = files[0];
  if (newest === undefined) throw new Error(`no .cpuprofile in ${target}`);
  return newest;
}

function frameName(frame: CallFrame): string {
  const where = frame.url === '' ? '' : ` ${frame.url.split('/').slice(-3).join('/')}:${frame.lineNumber + 1}`;
  return `${frame.functionName === '' ? '(anonymous)' : frame.functionName}${where}`;
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' } },
  allowPositionals: true,
  strict: true,
});
const target = positionals[0];
if (target === undefined) {
  process.stderr.write('usage: profile-summary FILE_OR_DIR [--top N]\n');
  process.exit(2);
}
const file = newestProfile(target);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
const IDLE = new Set(['(idle)', '(program)']);
const selfSamples = new Map<string, number>();
let busy = 0;
let elapsed = 0;
for (const delta of profile.timeDeltas) elapsed += delta;
for (const id of profile.samples) {
  const frame = frames.get(id);
  if (frame === undefined || IDLE.has(frame.functionName)) continue;
  busy += 1;
  const name = frameName(frame);
  selfSamples.set(name, (selfSamples.get(name) ?? 0) + 1);
}
const msPerSample = elapsed / 1000 / Math.max(1, profile.samples.length);
process.stdout.write(
  `${file}: ${profile.samples.length} samples over ${Math.round(elapsed / 1000)} ms, ${busy} busy (idle and (program) left out)\n`,
);
for (const [name, count] of [...selfSamples].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  const share = ((count / busy) * 100).toFixed(1).padStart(5);
  process.stdout.write(`${share}%  ${String(Math.round(count * msPerSample)).padStart(7)} ms  ${name}\n`);
}
