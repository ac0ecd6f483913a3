import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One check of a scenario as the suite writes it to checks.json. */
export interface SuiteCheck {
  readonly id: string;
  readonly name: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | string;
  readonly description?: string;
  readonly errorMessage?: string;
}

export interface ServerScenario {
  readonly name: string;
  /** The spec revisions the suite says the scenario applies to, e.g. ['2025-06-18', '2025-11-25']. */
  readonly revisions: readonly string[];
}

/** The suite's CLI (dist/index.js of the installed package), run on this process's Node (22). */
export class SuiteCli {
  constructor(private readonly cliPath: string) {}

  /** Every server scenario, pending ones included (`list` shows the whole catalogue). */
  async serverScenarios(): Promise<ServerScenario[]> {
    const { stdout } = await this.run(['list', '--server']);
    const scenarios: ServerScenario[] = [];
    for (const line of stdout.split('\n')) {
      const match = /^\s+- (\S+)(?: \[([^\]]*)\])?\s*$/.exec(line);
      if (match) scenarios.push({ name: match[1]!, revisions: match[2] ? match[2].split(',').map((tag) => tag.trim()) : [] });
    }
    if (scenarios.length === 0) throw new Error(`the suite listed no server scenarios:\n${stdout}`);
    return scenarios;
  }

  /**
   * Runs `scenarios` against `url` as the suite's client at `revision`. Starting the CLI costs far more
   * than most scenarios, so a whole revision runs in one CLI process (`--suite all --spec-version`)
   * unless only a few scenarios are asked for. Returns each scenario's checks; a scenario the CLI
   * wrote no result for is missing from the map.
   */
  async runScenarios(url: string, revision: string, scenarios: readonly string[], wholeRevision: boolean): Promise<Map<string, SuiteCheck[]>> {
    const outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    try {
      if (wholeRevision) {
        await this.run(['server', '--url', url, '--suite', 'all', '--spec-version', revision, '-o', outputDir]);
      } else {
        // A dated revision is passed on, so the suite's client speaks it (not its default revision).
        const revisionArgs = /^\d{4}-\d{2}-\d{2}$/.test(revision) ? ['--spec-version', revision] : [];
        for (const name of scenarios) await this.run(['server', '--url', url, '--scenario', name, ...revisionArgs, '-o', outputDir]);
      }
      return readResults(outputDir, scenarios);
    } finally {
      rmSync(outputDir, { recursive: true, force: true });
    }
  }

  /** The CLI's output; its exit code is not used (it is 1 whenever a check fails, which the caller judges). */
  private run(args: string[]): Promise<{ stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [this.cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', () => resolve({ stdout, stderr }));
    });
  }
}

/** The CLI writes each scenario's checks to <dir>/server-<scenario>-<ISO time with - for : and .>/checks.json. */
function readResults(dir: string, scenarios: readonly string[]): Map<string, SuiteCheck[]> {
  const results = new Map<string, SuiteCheck[]>();
  for (const entry of readdirSync(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const checksFile = join(dir, entry, 'checks.json');
    if (!match || !scenarios.includes(match[1]!) || !existsSync(checksFile)) continue;
    results.set(match[1]!, JSON.parse(readFileSync(checksFile, 'utf8')) as SuiteCheck[]);
  }
  return results;
}
