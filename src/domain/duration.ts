const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A key's lifetime as `keys create --expires-in` and the host API take it: 1 to 7 digits, then a unit. */
export const DURATION_PATTERN = '^([1-9][0-9]{0,6})([smhd])$';
const DURATION_RE = new RegExp(DURATION_PATTERN);

/** Parses a key lifetime such as `90s`, `30m`, `12h`, `30d` into ms; undefined if malformed. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION_RE.exec(text);
  if (m === null) return undefined;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}
