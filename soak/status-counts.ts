/**
 * Every answer the soak received, by where it went and what came back: a status, or the
 * network error when none came. Each is expected or not; one that is not fails the run.
 */
export type Surface = 'public' | 'host';

const KEPT_SAMPLES = 10;

export interface StatusCount {
  readonly surface: Surface;
  /** `200`, `429 after a cut connection`, `network ECONNRESET` … */
  readonly outcome: string;
  readonly expected: boolean;
  count: number;
}

/** An unexpected answer as it came: when, to whom, and what it said. */
export interface UnexpectedSample {
  readonly at: string;
  readonly surface: Surface;
  readonly outcome: string;
  readonly detail: string;
}

export interface StatusCounts {
  /** `detail`: who asked and what came back, kept for the first few unexpected answers. */
  add(surface: Surface, outcome: string, expected: boolean, detail?: () => string): void;
  samples(): readonly UnexpectedSample[];
  list(): readonly StatusCount[];
  unexpected(): number;
}

export function createStatusCounts(): StatusCounts {
  const counts = new Map<string, StatusCount>();
  const samples: UnexpectedSample[] = [];
  return {
    add(surface, outcome, expected, detail) {
      if (!expected && samples.length < KEPT_SAMPLES) {
        samples.push({ at: new Date().toISOString(), surface, outcome, detail: detail?.() ?? '' });
      }
      const name = `${surface} ${outcome} ${expected}`;
      const known = counts.get(name);
      if (known !== undefined) known.count += 1;
      else counts.set(name, { surface, outcome, expected, count: 1 });
    },
    samples: () => samples,
    list: () =>
      [...counts.values()].sort((a, b) => `${a.surface} ${a.outcome}`.localeCompare(`${b.surface} ${b.outcome}`)),
    unexpected: () => [...counts.values()].filter((c) => !c.expected).reduce((sum, c) => sum + c.count, 0),
  };
}

/** Node's code of a network error (ECONNRESET …), or its message when it has none. */
export function networkErrorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}
