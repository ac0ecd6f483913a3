import { readFileSync } from 'node:fs';
import type { SuiteCheck } from './suite-cli.js';

export type Outcome = 'pass' | 'fail';

/**
 * test/conformance/expected.json: for each server scenario, the outcome expected at each revision it
 * applies to, and for a failing one the reason (the open issue that adds the missing feature, or why a
 * stateless server cannot pass it). The runner fails on any difference, in both directions.
 */
export interface Expectations {
  readonly suite: string;
  readonly scenarios: Record<string, ScenarioExpectation>;
}
export type ScenarioExpectation = { readonly reason?: string } & Record<string, string | undefined>;

export interface Verdict {
  readonly outcome: Outcome;
  /** Failed and warning checks, one line each. */
  readonly problems: readonly string[];
}

/**
 * Checks the suite adds to every scenario that exchanged messages, whatever the scenario tests: their
 * success says nothing about the scenario's own feature (the skills scenarios, against a server that
 * declares no skills extension, skip every check of theirs and still have this one succeed).
 */
const SUITE_WIDE_CHECKS: ReadonlySet<string> = new Set(['wire-schema-valid']);

/**
 * A scenario passes when at least one of its own checks succeeded and no check failed or warned (as the
 * suite's own CI exit code counts them); a scenario whose own checks were all skipped does not pass.
 */
export function judge(checks: readonly SuiteCheck[]): Verdict {
  const problems = checks
    .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
    .map((check) => `${check.status.toLowerCase()} ${check.id}: ${oneLine(check.errorMessage ?? check.description ?? '')}`);
  const own = checks.filter((check) => !SUITE_WIDE_CHECKS.has(check.id));
  if (!own.some((check) => check.status === 'SUCCESS')) {
    const skipped = own.find((check) => check.status === 'SKIPPED');
    problems.push(skipped ? `no check of the scenario succeeded (skipped ${skipped.id}: ${oneLine(skipped.errorMessage ?? skipped.description ?? '')})` : 'no check succeeded');
  }
  return { outcome: problems.length === 0 ? 'pass' : 'fail', problems };
}

export function loadExpectations(file: string): Expectations {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Expectations;
  for (const [scenario, entry] of Object.entries(parsed.scenarios)) {
    for (const [key, value] of Object.entries(entry)) {
      if (key === 'reason') continue;
      if (value !== 'pass' && value !== 'fail') throw new Error(`expected.json: ${scenario} ${key} must be "pass" or "fail", not ${JSON.stringify(value)}`);
      if (value === 'fail' && !entry.reason) throw new Error(`expected.json: ${scenario} is expected to fail at ${key} but gives no reason`);
    }
  }
  return parsed;
}

export function expectedOutcome(expectations: Expectations, scenario: string, revision: string): Outcome | undefined {
  const value = expectations.scenarios[scenario]?.[revision];
  return value === 'pass' || value === 'fail' ? value : undefined;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 240 ? `${flat.slice(0, 237)}...` : flat;
}
