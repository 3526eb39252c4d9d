/**
 * What a command prints on success: `--json` gives one JSON document on stdout for machines,
 * otherwise the human text. Diagnostics go to stderr, never stdout.
 */
export function printResult(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

export function printNotice(text: string): void {
  process.stderr.write(`${text}\n`);
}
