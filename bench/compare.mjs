// Two builds of the palette side by side in one run: each in its own Node-RED with the bench's Local
// endpoints, measured in alternating 3-second slices (which build goes first swaps every round), so a
// change in the machine's load during the run reaches both alike. Separate `npm run bench` runs of
// two builds differ by more than most changes do on a shared machine; slices of one run do not.
//
// Usage: node bench/compare.mjs <node_modules of build A> <node_modules of build B> [rounds=6]
// Each folder holds @flowmcp/node-red-mcp as installed, such as the .runtime-fixture/node_modules
// that `node scripts/pack-fixture.mjs` makes of a checkout (a git worktree of the other commit).
// BENCH_ERA=modern speaks 2026-07-28. Prints calls/s and server CPU per call for each build and path.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../dist/test/support/ports.js';
import { localFlows } from './flows.mjs';
import { CALL, ERA, GET_PROMPT, READ, READ_TEMPLATED, loadOptions, measureSlice, post, warmUp } from './load.mjs';
import { SERVER_V8_FLAGS, startBenchNodeRed } from './node-red.mjs';

const [first, second, roundsArg] = process.argv.slice(2);
if (!first || !second) {
  console.error('usage: node bench/compare.mjs <node_modules A> <node_modules B> [rounds]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 6);
const SLICE_SECONDS = 3;
const CONNECTIONS = 32;
const PATHS = [
  ['tools/call, 1 tool', '/t1', CALL],
  ['tools/call beside content', '/c1', CALL],
  ['resources/read, fixed URI', '/c1', READ],
  ['resources/read, URI template', '/c1', READ_TEMPLATED],
  ['prompts/get', '/c1', GET_PROMPT],
];

const builds = [];
for (const [name, folder] of [['A', first], ['B', second]]) {
  const modules = resolve(folder);
  if (!existsSync(join(modules, '@flowmcp', 'node-red-mcp'))) throw new Error(`${modules} holds no @flowmcp/node-red-mcp`);
  // startBenchNodeRed links the palette from BENCH_FIXTURE when it is set.
  process.env.BENCH_FIXTURE = modules;
  const port = await freePort();
  const nodeRed = await startBenchNodeRed(localFlows(port, { pending: 0, content: true }));
  builds.push({ name, modules, base: `http://127.0.0.1:${port}`, nodeRed, totals: new Map() });
}
try {
  for (const build of builds) await ready(`${build.base}/c1`);
  console.log(`${ERA === 'modern' ? '2026-07-28' : '2025-11-25'}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SLICE_SECONDS} s slices; server V8 flags ${SERVER_V8_FLAGS.join(' ') || '(defaults)'}`);
  for (const build of builds) console.log(`  ${build.name}: ${build.modules}`);
  const options = (build, path, request) => loadOptions({ url: build.base + path, body: request.body, headers: request.headers, connections: CONNECTIONS });
  for (const [, path, request] of PATHS) for (const build of builds) await warmUp(options(build, path, request), 2);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, path, request] of PATHS) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const slice = await measureSlice(options(build, path, request), SLICE_SECONDS, [build.nodeRed.pid]);
        const total = build.totals.get(label) ?? { calls: 0, seconds: 0, cpu: 0, faults: 0 };
        total.calls += slice.calls;
        total.seconds += slice.seconds;
        total.cpu += slice.serverCpuSeconds;
        total.faults += slice.raw.errors + slice.raw.timeouts + slice.raw.non2xx;
        build.totals.set(label, total);
      }
    }
  }
  console.log('\n| path | A calls/s | B calls/s | B ÷ A | A CPU µs/call | B CPU µs/call | B ÷ A by CPU | faults |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [label] of PATHS) {
    const [a, b] = builds.map((build) => build.totals.get(label));
    const rate = (t) => t.calls / t.seconds;
    const cpu = (t) => (t.cpu * 1e6) / t.calls;
    console.log(`| ${label} | ${Math.round(rate(a))} | ${Math.round(rate(b))} | ${(rate(b) / rate(a)).toFixed(2)}× | ${cpu(a).toFixed(1)} | ${cpu(b).toFixed(1)} | ${(cpu(a) / cpu(b)).toFixed(2)}× | ${a.faults + b.faults} |`);
  }
} finally {
  for (const build of builds) await build.nodeRed.stop();
}

/** Waits until the endpoint answers a tools/call. */
async function ready(url) {
  for (let attempt = 0; attempt < 150; attempt++) {
    try {
      if ((await post(url, CALL.body, CALL.headers)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`${url} never answered`);
}
