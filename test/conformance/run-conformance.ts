/**
 * `npm run test:conformance`: the official MCP conformance suite as the referee.
 *
 * Starts a real Node-RED (on the Node 22 binary scripts/conformance.mjs runs this file with) with the
 * packed palette and the fixture flow (fixture-flow.ts), then runs every server scenario the suite
 * lists, pending ones included, once for each spec revision the scenario applies to, pinning that
 * revision on the wire (revision-pin-proxy.ts). Each outcome is compared with expected.json; the run
 * fails when a scenario expected to pass fails, when one expected to fail passes ("now passes, update
 * expected.json"), and when a scenario or revision is missing from the file. The last line of the output is
 * `conformance: N passed, N failed, N skipped`: runs passing as expected, runs that differ from
 * expected.json, and runs failing as expected.json says (known gaps, each with its reason).
 *
 * Options: `--scenario <name>` (repeatable) runs only those scenarios; `--verbose` prints every
 * problem of every failing run, expected or not. To serve a new scenario, see fixture-flow.ts.
 */
import { join } from 'node:path';
import { waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, repoRoot, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { expectedOutcome, judge, loadExpectations, type Expectations, type Outcome, type Verdict } from './expectations.js';
import { CONFORMANCE_PATH, conformanceFlow } from './fixture-flow.js';
import { startRevisionPinProxy } from './revision-pin-proxy.js';
import { SuiteCli, type ServerScenario } from './suite-cli.js';

const EXPECTED_FILE = join(repoRoot, 'test', 'conformance', 'expected.json');
const FIRST_REVISION_WITHOUT_INITIALIZE = '2026-07-28';

interface Run {
  readonly scenario: string;
  readonly revision: string;
  readonly verdict: Verdict;
  readonly expected: Outcome | undefined;
}

async function main(): Promise<number> {
  const { only, verbose } = parseArguments(process.argv.slice(2));
  const cliPath = process.env.MCP_CONFORMANCE_CLI;
  const suiteVersion = process.env.MCP_CONFORMANCE_VERSION;
  if (!cliPath || !suiteVersion) throw new Error('run through `npm run test:conformance` (scripts/conformance.mjs installs the suite)');
  const expectations = loadExpectations(EXPECTED_FILE);
  const suiteName = `@modelcontextprotocol/conformance@${suiteVersion}`;
  if (expectations.suite !== suiteName) throw new Error(`expected.json was written for ${expectations.suite}, the installed suite is ${suiteName}: review it`);

  const suite = new SuiteCli(cliPath);
  const listed = await suite.serverScenarios();
  const unknown = only.filter((name) => !listed.some((scenario) => scenario.name === name));
  if (unknown.length > 0) throw new Error(`the suite has no server scenario ${unknown.join(', ')}`);
  const scenarios = only.length > 0 ? listed.filter((scenario) => only.includes(scenario.name)) : listed;

  console.log(`${suiteName} on Node ${process.version}, ${nodeRedPackage}, ${scenarios.length} server scenarios`);
  const port = await freePort();
  const nodeRed = await startNodeRed(conformanceFlow(port));
  // Ctrl-C or a CI cancel must not leave Node-RED running.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void nodeRed.kill().finally(() => process.exit(130)));
  const started = Date.now();
  const runs: Run[] = [];
  try {
    const url = new URL(`http://127.0.0.1:${port}${CONFORMANCE_PATH}`);
    await waitForEndpoint(url.href);
    for (const revision of revisionsOf(scenarios)) {
      // Tags that are not a dated revision (`extension`) run unpinned: the client negotiates itself.
      const pinned = /^\d{4}-\d{2}-\d{2}$/.test(revision);
      const proxy = pinned ? await startRevisionPinProxy(url, revision) : { url: url.href, negotiated: new Set<string>(), close: async () => {} };
      try {
        const applicable = scenarios.filter((scenario) => scenario.revisions.includes(revision)).map((scenario) => scenario.name);
        const begun = Date.now();
        // `--spec-version` filters by dated revisions only: extension scenarios run one by one.
        const results = await suite.runScenarios(proxy.url, revision, applicable, only.length === 0 && pinned);
        const negotiated = [...proxy.negotiated];
        console.log(`${revision}: ${applicable.length} scenarios in ${Math.round((Date.now() - begun) / 1000)} s, negotiated ${negotiated.join(', ') || 'nothing'}`);
        // Revisions up to 2025-11-25 open with initialize; 2026-07-28 (in the 0.2 suites) has none to check.
        const handshake = revision < FIRST_REVISION_WITHOUT_INITIALIZE;
        if (pinned && (negotiated.some((version) => version !== revision) || (handshake && negotiated.length === 0))) {
          throw new Error(`the server did not negotiate ${revision} (it answered ${negotiated.join(', ') || 'no initialize'})`);
        }
        for (const name of applicable) {
          const checks = results.get(name);
          const verdict: Verdict = checks ? judge(checks) : { outcome: 'fail', problems: ['the suite wrote no result for it'] };
          runs.push({ scenario: name, revision, verdict, expected: expectedOutcome(expectations, name, revision) });
        }
      } finally {
        await proxy.close();
      }
    }
  } catch (error) {
    console.error(`Node-RED output:\n${nodeRed.output().slice(-3000)}`);
    throw error;
  } finally {
    await stopQuietly(nodeRed);
  }

  const mismatches = report(scenarios, runs, expectations, verbose);
  const stale = only.length === 0 ? staleEntries(expectations, scenarios) : [];
  for (const line of stale) console.log(line);
  console.log(`\n${runs.length} runs in ${Math.round((Date.now() - started) / 1000)} s; ${mismatches + stale.length} differ from expected.json`);
  // The closing line CI reads: runs that pass as expected, runs that differ from expected.json (each
  // fails the run), and the known gaps expected.json names with a reason, which are not run failures.
  const passed = runs.filter((run) => run.verdict.outcome === 'pass' && run.expected === 'pass').length;
  const knownGaps = runs.filter((run) => run.verdict.outcome === 'fail' && run.expected === 'fail').length;
  console.log(`${knownGaps} runs fail as expected.json says (reasons in the table above and in docs/protocol-and-limits.md)`);
  console.log(`conformance: ${passed} passed, ${mismatches + stale.length} failed, ${knownGaps} skipped`);
  return mismatches + stale.length === 0 ? 0 : 1;
}

/** Prints the table and the problems of unexpected results; returns how many runs differ from expected.json. */
function report(scenarios: readonly ServerScenario[], runs: readonly Run[], expectations: Expectations, verbose: boolean): number {
  const revisions = revisionsOf(scenarios);
  const width = Math.max(...scenarios.map((scenario) => scenario.name.length), 8);
  console.log(`\n${'scenario'.padEnd(width)}  ${revisions.map((revision) => revision.padEnd(12)).join('')}reason for an expected failure`);
  let mismatches = 0;
  const details: string[] = [];
  for (const scenario of scenarios) {
    const cells = revisions.map((revision) => {
      const run = runs.find((candidate) => candidate.scenario === scenario.name && candidate.revision === revision);
      if (!run) return '-'.padEnd(12);
      const cell = describeRun(run);
      if (cell.mismatch) {
        mismatches += 1;
        details.push(`${scenario.name} @ ${revision}: ${cell.message}`, ...run.verdict.problems.map((problem) => `    ${problem}`));
      } else if (verbose && run.verdict.outcome === 'fail') {
        details.push(`${scenario.name} @ ${revision} (expected failure):`, ...run.verdict.problems.map((problem) => `    ${problem}`));
      }
      return cell.text.padEnd(12);
    });
    console.log(`${scenario.name.padEnd(width)}  ${cells.join('')}${expectations.scenarios[scenario.name]?.reason ?? ''}`);
  }
  if (details.length > 0) console.log(`\n${details.join('\n')}`);
  return mismatches;
}

function describeRun(run: Run): { text: string; mismatch: boolean; message?: string } {
  const actual = run.verdict.outcome;
  if (run.expected === undefined) return { text: `${actual}?`, mismatch: true, message: `${actual}, not in expected.json: add it` };
  if (actual === run.expected) return { text: actual, mismatch: false };
  if (actual === 'pass') return { text: 'PASS!', mismatch: true, message: 'now passes, update expected.json' };
  return { text: 'FAIL!', mismatch: true, message: 'fails, expected to pass' };
}

/** Entries of expected.json the suite no longer runs, so the file cannot silently rot. */
function staleEntries(expectations: Expectations, scenarios: readonly ServerScenario[]): string[] {
  const lines: string[] = [];
  for (const [name, entry] of Object.entries(expectations.scenarios)) {
    const scenario = scenarios.find((candidate) => candidate.name === name);
    for (const revision of Object.keys(entry).filter((key) => key !== 'reason')) {
      if (!scenario?.revisions.includes(revision)) lines.push(`${name} @ ${revision}: in expected.json but the suite does not run it: remove it`);
    }
  }
  return lines;
}

function revisionsOf(scenarios: readonly ServerScenario[]): string[] {
  return [...new Set(scenarios.flatMap((scenario) => scenario.revisions))].sort();
}

function parseArguments(args: string[]): { only: string[]; verbose: boolean } {
  const only: string[] = [];
  let verbose = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg === '--verbose') verbose = true;
    else if (arg === '--scenario' && args[index + 1]) only.push(args[(index += 1)]!);
    else throw new Error(`unknown argument ${arg}; use --scenario <name> (repeatable) and --verbose`);
  }
  return { only, verbose };
}

async function stopQuietly(nodeRed: NodeRedProcess): Promise<void> {
  try {
    await nodeRed.stop();
  } catch (error) {
    console.error(`stopping Node-RED failed: ${(error as Error).message}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.stack ?? error.message);
    process.exit(2);
  },
);
