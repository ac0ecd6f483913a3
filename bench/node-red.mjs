// A real Node-RED in its own process for the bench. It follows test/support/node-red-process.ts
// (packed palette from .runtime-fixture, editor on loopback, flows deployed at start) and adds
// what the bench needs and the tests do not:
// - a private copy of the fixture, so a concurrent `pack-fixture` cannot pull it away mid-run;
// - `--expose-gc` and a `benchProbe` in functionGlobalContext: function nodes read the process heap
//   (after a full GC) and hold/release calls without the bench touching the palette's code;
// - an optional `--cpu-prof` directory (BENCH_CPU_PROF) for profiling the server side;
// - the V8 flags every server process of the bench runs with (SERVER_V8_FLAGS);
// - a bounded log tail: the OAuth endpoints audit every call, and a soak would otherwise grow a
//   string of hundreds of megabytes in the bench process.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../dist/test/support/ports.js';

const require = createRequire(import.meta.url);
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT_TAIL = 256 * 1024;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';

/**
 * V8 flags for every server process the bench starts (Node-RED, the SDK baselines and R alike).
 * The rounds interleave the scenarios, so most servers idle for a minute between their slices, and
 * V8's memory reducer shrinks an idle process's heap: the next slice then pays seconds of extra
 * garbage collection while the heap grows back, which the one-second slice warm-up does not cover.
 * A server busy in most slices (the Local Node-RED) never idles, so that cost fell on the others:
 * measured on 2026-12-07, the relayed call's hub and edge spent 162 µs per call in a run of many
 * phases and 114 µs with the reducer off, as in a relay-only run. Sustained load, which the bench
 * means to measure, never lets it run. BENCH_V8_FLAGS replaces the list ('' to measure with it on).
 */
export const SERVER_V8_FLAGS = (process.env.BENCH_V8_FLAGS ?? '--no-memory-reducer').split(' ').filter((flag) => flag !== '');

async function waitForEditor(url, child) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (await fetch(url).then((response) => response.ok, () => false)) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`Node-RED's editor at ${url} did not answer`);
}

let privateModules;

/**
 * Copies .runtime-fixture/node_modules once per bench run (removed by `cleanupFixture`), or uses the
 * node_modules named by BENCH_FIXTURE as is (to measure a candidate change without repacking).
 */
function fixtureModules() {
  if (process.env.BENCH_FIXTURE) return process.env.BENCH_FIXTURE;
  if (privateModules) return privateModules;
  const source = join(repoRoot, '.runtime-fixture', 'node_modules');
  if (!existsSync(join(source, '@flowmcp', 'node-red-mcp'))) {
    throw new Error('runtime fixture missing: run `node scripts/build.mjs && node scripts/pack-fixture.mjs` (npm run bench does) first');
  }
  const dir = mkdtempSync(join(tmpdir(), 'nr-mcp-bench-fixture-'));
  cpSync(source, join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  privateModules = join(dir, 'node_modules');
  return privateModules;
}

export function cleanupFixture() {
  if (privateModules) rmSync(dirname(privateModules), { recursive: true, force: true });
  privateModules = undefined;
}

// Evaluated inside Node-RED's settings file: `gc` exists because of --expose-gc.
const SETTINGS_PROBE = `{
  held: [],
  release: undefined,
  memory() {
    if (typeof globalThis.gc === 'function') { globalThis.gc(); globalThis.gc(); }
    const m = process.memoryUsage();
    return { heapUsed: m.heapUsed, heapTotal: m.heapTotal, rss: m.rss, external: m.external, held: this.held.length };
  },
  snapshot(dir) {
    return require('v8').writeHeapSnapshot(require('path').join(dir, 'node-red-' + Date.now() + '.heapsnapshot'));
  },
}`;

/**
 * Starts Node-RED with `flows`; resolves once "Started flows" was logged.
 * options.env: extra environment; options.cpuProfDir: write a V8 CPU profile there on exit.
 */
export async function startBenchNodeRed(flows, options = {}) {
  const modules = fixtureModules();
  const userDir = mkdtempSync(join(tmpdir(), 'nr-mcp-bench-'));
  symlinkSync(modules, join(userDir, 'node_modules'), 'dir');
  writeFileSync(join(userDir, 'flows.json'), JSON.stringify(flows));
  const uiPort = await freePort();
  const settings = {
    uiHost: '127.0.0.1',
    uiPort,
    flowFile: 'flows.json',
    credentialSecret: false,
    // Node-RED's default, at which every OAuth call's audit line is written to stdout; BENCH_LOG_LEVEL=warn
    // leaves those writes out, to show what they cost.
    logging: { console: { level: LOG_LEVEL, metrics: false, audit: false } },
    editorTheme: { tours: false },
    externalModules: { autoInstall: false, palette: { allowInstall: false } },
  };
  const settingsText = `const settings = ${JSON.stringify(settings)};\nsettings.functionGlobalContext = { benchProbe: ${SETTINGS_PROBE} };\nmodule.exports = settings;\n`;
  writeFileSync(join(userDir, 'settings.js'), settingsText);

  const redJs = require.resolve('node-red/red.js');
  const nodeArgs = ['--expose-gc', ...SERVER_V8_FLAGS];
  if (options.cpuProfDir) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', options.cpuProfDir);
  const child = spawn(process.execPath, [...nodeArgs, redJs, '--userDir', userDir, '--settings', join(userDir, 'settings.js')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env, NODE_RED_HOME: userDir },
  });
  // The last OUTPUT_TAIL characters, kept as chunks and joined only when read. This process is also the
  // load generator, and an OAuth call writes an audit line: joining and slicing a 256 KiB string per
  // chunk copied it each time, CPU the load generator lost and the OAuth rows were charged for.
  const chunks = [];
  let kept = 0;
  let total = 0;
  const waiters = new Set();
  const output = () => {
    const text = chunks.join('');
    chunks.length = 0;
    chunks.push(text);
    return text.slice(-OUTPUT_TAIL);
  };
  const collect = (chunk) => {
    const text = chunk.toString();
    total += text.length;
    chunks.push(text);
    kept += text.length;
    while (chunks.length > 1 && kept - chunks[0].length >= OUTPUT_TAIL) kept -= chunks.shift().length;
    for (const wake of waiters) wake();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const waitForOutput = (text, timeoutMs = 60_000) =>
    new Promise((resolve, reject) => {
      const matches = () => (typeof text === 'string' ? output().includes(text) : text.test(output()));
      if (matches()) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${String(text)} in Node-RED output:\n${output().slice(-3000)}`));
      }, timeoutMs);
      const check = () => {
        if (!matches() && child.exitCode === null) return;
        clearTimeout(timer);
        waiters.delete(check);
        if (matches()) resolve();
        else reject(new Error(`Node-RED exited:\n${output().slice(-3000)}`));
      };
      waiters.add(check);
      child.once('exit', () => check());
    });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // Node-RED stops its flows and exits normally on SIGTERM, so --cpu-prof writes its file.
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    }
    process.removeListener('exit', killOnExit);
    rmSync(userDir, { recursive: true, force: true });
  };

  try {
    // Below info, "Started flows" is not logged: the editor's port answering will do (callers wait for their paths).
    if (LOG_LEVEL === 'info') await waitForOutput('Started flows');
    else await waitForEditor(`http://127.0.0.1:${uiPort}/`, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    pid: child.pid,
    adminUrl: `http://127.0.0.1:${uiPort}`,
    output,
    outputBytes: () => total,
    waitForOutput,
    stop,
  };
}
