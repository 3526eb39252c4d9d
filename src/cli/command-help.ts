import type { ParseArgsConfig } from 'node:util';
import { ENV } from '../config.js';

/** One option as node:util parseArgs takes it. */
type ParseArgsOptionConfig = NonNullable<ParseArgsConfig['options']>[string];

/**
 * One flag of a command: what node:util parseArgs needs, and what `--help` says of it. The
 * command's table of flags is the one place that knows them, so its `--help` cannot leave
 * one out.
 */
export type Flag = ParseArgsOptionConfig & {
  /** What the flag does, in a few words. */
  readonly help: string;
  /** The value's placeholder in `--help` (`FILE`, `N`); `VALUE` when not given. */
  readonly value?: string;
  /** The default as `--help` shows it, when it is applied after parsing (`8443`), or a note (`none`). */
  readonly shown?: string;
  /** The environment variable read when the flag is absent (config.ts, the only reader of it). */
  readonly env?: keyof typeof ENV;
  /** True when the command refuses to run without it. */
  readonly required?: boolean;
};

export type Flags = Readonly<Record<string, Flag>>;

/** What node:util parseArgs takes: the flags without their help. */
export function parseArgsOptions(flags: Flags): Record<string, ParseArgsOptionConfig> {
  return Object.fromEntries(
    Object.entries(flags).map(([name, flag]) => {
      const { type, short, multiple, default: fallback } = flag;
      const option: ParseArgsOptionConfig = { type };
      if (short !== undefined) option.short = short;
      if (multiple !== undefined) option.multiple = multiple;
      if (fallback !== undefined) option.default = fallback;
      return [name, option];
    }),
  );
}

/** `meal-export keys create` of a usage line `meal-export keys create --user ID …`. */
export function commandOf(usage: string): string {
  const words: string[] = [];
  for (const word of usage.replace(/^usage:\s*/, '').split(/\s+/)) {
    if (!/^[a-z][a-z-]*$/.test(word)) break;
    words.push(word);
  }
  return words.join(' ');
}

function defaultOf(flag: Flag): string | undefined {
  if (flag.required === true) return undefined;
  if (flag.shown !== undefined) return flag.shown;
  if (flag.default === undefined) return flag.type === 'boolean' ? 'false' : undefined;
  if (typeof flag.default === 'string') return flag.default === '' ? '""' : flag.default;
  return String(flag.default);
}

/**
 * A command's usage line from its table of flags, so that the line cannot name a flag the
 * parser lacks or leave one out: `meal-export serve [--host HOST] [--port N] … [--insecure-http]`.
 */
export function usageOf(command: string, flags: Flags): string {
  const words = Object.entries(flags).map(([name, flag]) => {
    const word = flag.type === 'string' ? `--${name} ${flag.value ?? 'VALUE'}` : `--${name}`;
    return flag.required === true ? word : `[${word}]`;
  });
  return [command, ...words].join(' ');
}

/** The text of `--help`: the usage line, then each flag with its default and its variable. */
export function helpText(usage: string, flags: Flags): string {
  const rows = Object.entries(flags).map(([name, flag]) => {
    const short = flag.short === undefined ? '    ' : `-${flag.short}, `;
    const left = `${short}--${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`;
    const notes: string[] = [];
    if (flag.required === true) notes.push('required');
    const fallback = defaultOf(flag);
    if (fallback !== undefined) notes.push(`default: ${fallback}`);
    if (flag.env !== undefined) notes.push(`env: ${ENV[flag.env]}`);
    return { left, right: notes.length === 0 ? flag.help : `${flag.help} (${notes.join('; ')})` };
  });
  const width = Math.max(...rows.map((row) => row.left.length)) + 2;
  const lines = rows.map((row) => `  ${row.left.padEnd(width)}${row.right}`);
  return `usage: ${usage.replace(/^usage:\s*/, '')}\n\noptions:\n${lines.join('\n')}`;
}
