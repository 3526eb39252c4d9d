import { describe, test } from 'node:test';

/**
 * Hono's shared suite (src/router/common.case.test.ts): one suite of cases that every
 * implementation of an interface runs, each implementation naming the cases it skips and why.
 */
export interface SharedSuiteOptions {
  /** The implementation, first in every title: 'SQLite', 'PostgreSQL'. */
  readonly name: string;
  /**
   * Why no case can run here (the server does not answer), printed as the skip reason of the
   * whole suite; undefined when they can. Where the services are required
   * (MEAL_EXPORT_TEST_REQUIRE_SERVICES=1) the reason is an error before it gets here.
   */
  readonly unavailable?: string | undefined;
  /** Cases this implementation does not run, each group with its reason. */
  readonly skip?: readonly SkippedCases[];
}

export interface SkippedCases {
  readonly reason: string;
  /** Case names, exactly as the suite titles them. */
  readonly cases: readonly string[];
}

/** What a suite's body declares its cases with. */
export interface SuiteBuilder {
  test(name: string, run: () => Promise<void>): void;
  describe(title: string, body: () => void): void;
}

export type PlannedNode =
  | {
      readonly kind: 'case';
      readonly name: string;
      readonly skip: string | undefined;
      readonly run: () => Promise<void>;
    }
  | { readonly kind: 'group'; readonly title: string; readonly children: readonly PlannedNode[] };

/**
 * The suite's cases, each with its skip reason. A skip list that names no case of the suite,
 * or a suite that titles two cases alike, is an error: a renamed case cannot leave a skip
 * behind that silently skips nothing.
 */
export function planSharedSuite(
  options: SharedSuiteOptions,
  title: string,
  body: (suite: SuiteBuilder) => void,
): PlannedNode[] {
  const reasons = new Map<string, string>();
  for (const { reason, cases } of options.skip ?? []) {
    for (const name of cases) {
      if (reasons.has(name)) throw new Error(`${options.name} ${title}: "${name}" is skipped twice`);
      reasons.set(name, reason);
    }
  }
  const seen = new Set<string>();
  let level: PlannedNode[] = [];
  const root = level;
  body({
    test(name, run) {
      if (seen.has(name)) throw new Error(`${options.name} ${title}: two cases are titled "${name}"`);
      seen.add(name);
      level.push({ kind: 'case', name, skip: reasons.get(name), run });
    },
    describe(groupTitle, groupBody) {
      const outer = level;
      const children: PlannedNode[] = [];
      level = children;
      try {
        groupBody();
      } finally {
        level = outer;
      }
      outer.push({ kind: 'group', title: groupTitle, children });
    },
  });
  const unknown = [...reasons.keys()].filter((name) => !seen.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `${options.name} ${title}: the skip list names no case of this suite: ${unknown.map((name) => `"${name}"`).join(', ')}`,
    );
  }
  return root;
}

/** Registers the suite with node:test, under `${name} ${title}`. */
export function runSharedSuite(options: SharedSuiteOptions, title: string, body: (suite: SuiteBuilder) => void): void {
  const plan = planSharedSuite(options, title, body);
  describe(`${options.name} ${title}`, { skip: options.unavailable ?? false }, () => register(plan));
}

function register(nodes: readonly PlannedNode[]): void {
  for (const node of nodes) {
    if (node.kind === 'case') test(node.name, { skip: node.skip ?? false }, node.run);
    else describe(node.title, () => register(node.children));
  }
}
