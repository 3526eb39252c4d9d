import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';

/** One finding of a linter, as a test reports it. */
export interface LintFinding {
  readonly linter: 'spectral' | 'redocly';
  readonly severity: 'error' | 'warn' | 'info' | 'hint';
  readonly rule: string;
  readonly where: string;
  readonly message: string;
}

const SPECTRAL_SEVERITIES = ['error', 'warn', 'info', 'hint'] as const;

/** Spectral with its `spectral:oas` ruleset, as `spectral lint` runs it with `extends: spectral:oas`. */
export async function lintWithSpectral(json: string): Promise<LintFinding[]> {
  const spectral = new spectralCore.Spectral();
  // The package's declared types of its own ruleset do not match setRuleset's (a known gap of
  // @stoplight/spectral-rulesets); the value is the ruleset `extends: spectral:oas` loads.
  spectral.setRuleset({ extends: [spectralRulesets.oas as RulesetDefinition] });
  const results = await spectral.run(new spectralCore.Document(json, spectralParsers.Json, 'openapi.json'));
  return results.map((r) => ({
    linter: 'spectral',
    severity: SPECTRAL_SEVERITIES[r.severity] ?? 'error',
    rule: String(r.code),
    where: r.path.join('.'),
    message: r.message,
  }));
}

/** Redocly with its `recommended` ruleset, as `redocly lint` runs it with no configuration file. */
export async function lintWithRedocly(json: string): Promise<LintFinding[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: json, absoluteRef: 'openapi.json', config });
  return problems.map((p) => ({
    linter: 'redocly',
    severity: p.severity,
    rule: p.ruleId,
    where: p.location.map((l) => l.pointer ?? '').join(' '),
    message: p.message,
  }));
}
