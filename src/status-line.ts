/** Where progress goes: stderr, or a stand-in in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): boolean;
}

export interface StatusLine {
  /** Whether the stream is a terminal: off one, `show` writes nothing. */
  readonly tty: boolean;
  /** Rewrites the line in place (a terminal only). */
  show(text: string): void;
  /**
   * A line that stays, written above the status line, on a terminal and off it alike; the
   * status line, if shown, comes back below it with `again` (else its last text).
   */
  print(text: string, again?: string): void;
  /** Clears the status line, leaving the cursor at the start of an empty line. */
  clear(): void;
}

// Carriage return, then erase the whole line (ECMA-48 EL 2).
const ERASE_LINE = '\r\x1b[2K';

/**
 * One self-rewriting line on a terminal, as `pull` and `meals import` show their progress:
 * nothing at all when the stream is not a terminal (a log or a pipe keeps only lasting
 * lines), so that scripts and tests see the output they always saw.
 */
export function createStatusLine(stream: ProgressStream): StatusLine {
  const tty = stream.isTTY === true;
  let shown: string | undefined;
  const line: StatusLine = {
    tty,
    show(text) {
      if (!tty) return;
      stream.write(`${ERASE_LINE}${text}`);
      shown = text;
    },
    print(text, again) {
      const before = shown;
      line.clear();
      stream.write(`${text}\n`);
      if (before !== undefined) line.show(again ?? before);
    },
    clear() {
      if (shown !== undefined) stream.write(ERASE_LINE);
      shown = undefined;
    },
  };
  return line;
}
