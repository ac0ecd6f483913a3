import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectOutput } from './child-output.js';
import { nodeRedDir, nodeRedLabel } from './node-red-package.js';
import { freePort } from './ports.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The Node-RED under test as `node-red@<version>` (4.1.x on Node 20 by default; see node-red-package.ts). */
export const nodeRedPackage = nodeRedLabel;

export type FlowNode = Record<string, unknown> & { id: string; type: string };

export interface NodeRedProcess {
  readonly adminUrl: string;
  readonly adminPort: number;
  readonly userDir: string;
  /** Everything Node-RED printed so far (its log goes to stdout). */
  output(): string;
  /** Resolves when `text` has appeared in the output after `since` (an output length). */
  waitForOutput(text: string | RegExp, since?: number, timeoutMs?: number): Promise<void>;
  /** Resolves when `pattern` has matched `count` times in the output after `since`; returns every match. */
  waitForMatches(pattern: RegExp, count: number, since?: number, timeoutMs?: number): Promise<RegExpMatchArray[]>;
  deploy(flows: FlowNode[], type?: 'full' | 'nodes' | 'flows'): Promise<void>;
  getFlows(): Promise<FlowNode[]>;
  /** A crash: SIGKILL, no chance to close anything. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real Node-RED in its own process: a fresh user directory whose node_modules is the packed and
 * installed palette (.runtime-fixture), the editor bound to loopback on a free port, and `flows`
 * deployed at startup. It runs on whichever Node binary runs the tests.
 */
export interface StartOptions {
  readonly env?: Record<string, string>;
  /**
   * Turns on Node-RED's adminAuth with two bearer tokens: `write` (all permissions, used by this
   * harness to deploy) and `read` (flows.read only, what get_flow is given); `viewer`, when given, is
   * an editor user with Node-RED's `read` permission (can look at everything, change nothing).
   */
  readonly adminTokens?: { readonly write: string; readonly read: string; readonly viewer?: string };
  /** The editor/admin port; a free one when absent. */
  readonly uiPort?: number;
  /** More settings.js entries (plain JSON values), such as httpNodeRoot or httpNodeAuth. */
  readonly settings?: Record<string, unknown>;
  /** Node-RED's console log level; `debug` shows the lines nodes write with node.debug. Default `info`. */
  readonly logLevel?: 'info' | 'debug';
  /** Node credentials by node id, written to flows_cred.json (unencrypted: credentialSecret is false). */
  readonly credentials?: Record<string, Record<string, string>>;
}

export async function startNodeRed(flows: FlowNode[], options: StartOptions = {}): Promise<NodeRedProcess> {
  const fixtureModules = join(repoRoot, '.runtime-fixture', 'node_modules');
  if (!existsSync(join(fixtureModules, '@flowmcp', 'node-red-mcp'))) {
    throw new Error('runtime fixture missing: run `node scripts/pack-fixture.mjs` (npm test does) first');
  }
  const userDir = mkdtempSync(join(tmpdir(), 'nr-mcp-test-'));
  symlinkSync(fixtureModules, join(userDir, 'node_modules'), 'dir');
  writeFileSync(join(userDir, 'flows.json'), JSON.stringify(flows));
  if (options.credentials) writeFileSync(join(userDir, 'flows_cred.json'), JSON.stringify(options.credentials));
  const uiPort = options.uiPort ?? (await freePort());
  const settings = {
    uiHost: '127.0.0.1',
    uiPort,
    flowFile: 'flows.json',
    credentialSecret: false,
    logging: { console: { level: options.logLevel ?? 'info', metrics: false, audit: false } },
    editorTheme: { tours: false },
    externalModules: { autoInstall: false, palette: { allowInstall: false } },
    ...options.settings,
  };
  const adminAuth = options.adminTokens
    ? `settings.adminAuth = { type: 'credentials', users: [], tokens: (token) => Promise.resolve(
        token === ${JSON.stringify(options.adminTokens.write)} ? { username: 'harness', permissions: '*' } :
        token === ${JSON.stringify(options.adminTokens.read)} ? { username: 'mcp-reader', permissions: ['flows.read'] } :
        token === ${JSON.stringify(options.adminTokens.viewer ?? null)} ? { username: 'viewer', permissions: 'read' } : null) };\n`
    : '';
  writeFileSync(join(userDir, 'settings.js'), `const settings = ${JSON.stringify(settings)};\n${adminAuth}module.exports = settings;\n`);
  const adminHeaders: Record<string, string> = options.adminTokens ? { authorization: `Bearer ${options.adminTokens.write}` } : {};

  const redJs = join(nodeRedDir, 'red.js');
  const child: ChildProcess = spawn(process.execPath, [redJs, '--userDir', userDir, '--settings', join(userDir, 'settings.js')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env, NODE_RED_HOME: userDir },
  });
  const { text: output, wakers: waiters } = collectOutput(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const waitForOutput = (text: string | RegExp, since = 0, timeoutMs = 20_000) =>
    waitUntil((tail) => (typeof text === 'string' ? tail.includes(text) : text.test(tail)), String(text), since, timeoutMs);
  const matchesOf = (pattern: RegExp, tail: string) => [...tail.matchAll(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))];
  const waitForMatches = async (pattern: RegExp, count: number, since = 0, timeoutMs = 20_000) => {
    await waitUntil((tail) => matchesOf(pattern, tail).length >= count, `${count} x ${String(pattern)}`, since, timeoutMs);
    return matchesOf(pattern, output().slice(since));
  };
  // The time limit only stops a broken test from hanging; every wait ends on what Node-RED printed.
  function waitUntil(done: (tail: string) => boolean, what: string, since: number, timeoutMs: number) {
    return new Promise<void>((resolve, reject) => {
      const matches = () => done(output().slice(since));
      if (matches()) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what} in Node-RED output:\n${output().slice(-3000)}`));
      }, timeoutMs);
      const check = () => {
        if (!matches()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
    });
  }

  const adminUrl = `http://127.0.0.1:${uiPort}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(userDir, { recursive: true, force: true });
  };

  try {
    await waitForOutput('Started flows', 0, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    adminUrl,
    adminPort: uiPort,
    userDir,
    output,
    waitForOutput,
    waitForMatches,
    async deploy(nextFlows, type = 'full') {
      const since = output().length;
      const response = await fetch(`${adminUrl}/flows`, {
        method: 'POST',
        headers: { ...adminHeaders, 'content-type': 'application/json', 'node-red-deployment-type': type, 'node-red-api-version': 'v1' },
        body: JSON.stringify(nextFlows),
      });
      if (response.status !== 204) throw new Error(`deploy failed: ${response.status} ${await response.text()}`);
      await waitForOutput('Started', since);
    },
    async getFlows() {
      const response = await fetch(`${adminUrl}/flows`, { headers: { ...adminHeaders, 'node-red-api-version': 'v1' } });
      return (await response.json()) as FlowNode[];
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop,
  };
}
