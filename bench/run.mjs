// `npm run bench`: throughput and latency of this palette in a real Node-RED against bare official-SDK
// servers and a hand-wired Node-RED flow measured in the same run, plus thousands of pending calls and a
// long soak. Prints Markdown tables and writes bench/results.json (results-modern.json with
// BENCH_ERA=modern; -partial with BENCH_ONLY). Not part of `npm test`.
//
// Scenarios of tools/call (the `baseline` phase starts A, B and H; `local` and `oauth` this package):
//   Baseline R      the floor: a raw node:http server answering the same tools/call from memory, in its
//                   own process (bench/raw-server.mjs): same request bytes, same answer shape
//   Baseline A / B  a bare official-SDK v2 server with 1 / 500 echo tools (bench/baseline-server.mjs)
//   Baseline H      core Node-RED nodes wired by hand, no palette: `http in` POST → `function` that
//                   answers JSON-RPC (initialize, ping, tools/list, tools/call of one echo tool) →
//                   `http response` (flows.mjs handWiredFlows), in its own Node-RED process of the
//                   same version as the palette's; what a user builds without any palette, and a
//                   stand-in for hand-written palettes that answer JSON-RPC without the SDK or checks
//   this package    Local 1 / 100 / 500 tools; OAuth + Memory and OAuth + Redis, 500 tools
//   token-1         Local 1 tool, the same tools/call with a progressToken in `_meta` and no progress
//                   reported, as Claude Code and Codex send every call (2025 revisions: an SSE answer
//                   of one event; 2026-07-28: a JSON answer); printed against Local 1 tool
// Phase `relay` adds edge relaying: a hub Node-RED (Local access) serving the one echo tool of an edge
// Node-RED through Redis pub/sub (hub → Redis → edge flow → Redis → hub; flows.mjs relayHubFlows,
// relayEdgeFlows), each in its own process, with the Redis the OAuth phase uses. Its tools/call joins
// the same interleaved rounds (with the Local 1-tool endpoint, its reference; server CPU there is hub
// + edge + redis-server); then one-call-at-a-time latency, relayed and Local alternating in each round;
// then BENCH_PENDING relayed calls held at once by the edge's flow, heap read on the hub (and the edge),
// against the Local `pending` figure (measured for it when the `pending` phase is not selected).
// The same phase relays an edge's content, progress and questions, from a site of their own (plant-c:
// edge /ec, hub /rc, so /r1 stays as it was), all answered by one function node as on Local /p1:
//   relay-read, relay-tread  resources/read of edge://plant-c/bench://r-0 and of the template
//                            edge://plant-c/bench://t/{id}; relay-prompt  prompts/get of plant-c.p_0.
//                            Each is printed against the same request on Local /c1 (read-1, tread-1,
//                            prompt-1) when the `content` phase runs, so the ratio is what the relay
//                            costs a read; without it against relay-1, the relayed tools/call (a read
//                            costs more than a call locally, so that ratio mixes the two).
//   progress-1, relay-progress  tools/call of progress_0 with a progressToken: the flow reports 1 of 1
//                            and answers; the answer is an SSE stream (the progress notification, then
//                            the result), and every answer must carry the same messages. Local /p1 is
//                            the reference (and is printed against Local 1 tool: what progress costs).
// All of them join the same interleaved rounds, with server CPU hub + edge + redis-server. With
// BENCH_ERA=modern, a tool whose flow asks one question (ask_0: input_required, then the retry with the
// answer and the sealed requestState, two requests) is timed one exchange at a time, relayed and Local
// /p1 alternating in each round, after the relayed tools/call's latency. No new targets: the rows are
// printed beside the relayed tools/call's, with '—' for a goal.
// Phase `ha` adds OAuth + Redis Sentinel and OAuth + Redis Cluster endpoints (500 tools, storage on a
// Sentinel group and a three-primary Cluster on loopback, started as the runtime tests start them)
// beside OAuth + one Redis, in the same interleaved rounds: steady-state calls/s against one Redis.
// Phase `content` adds resources/read (of a fixed URI and of a URI template) and prompts/get on Local
// endpoints with 1 and 500 flow-answered resources, templates and prompts and one echo tool (answered
// by a one-node flow), in the same interleaved rounds with that tool's tools/call: each read and
// prompt is compared with the tools/call rate of its own endpoint, and its 500 vs 1 ratio shows
// whether it costs more on a larger endpoint (for templates: whether matching grows with their number).
// Each answer is checked once before loading (content `hi`), and every answer under load must equal it.
// Phases `oauth` and `list` together add access per tool: an OAuth + Redis endpoint whose 500 tools are
// a third for every member, a third for `maintenance`, a third for `ops` (flows.mjs GROUP_SET_CALLERS),
// listed by a caller of each of the three group sets, beside OAuth + Redis 500 tools without limits.
// Phase `oneport` adds one-port mode: the same one-tool echo endpoint as Local 1 tool, served on
// Node-RED's own HTTP server (its Express app, beside the editor, with Node-RED's default settings)
// instead of the runtime's own listener, in the same Node-RED and the same rounds as Local 1 tool.
//
// Every server runs in its own process and all of them are up at once; the load generator (this
// process) measures them in interleaved rounds, so a change in the machine's background load
// during the run affects baselines and this package alike instead of skewing their ratios.
//
// Environment (all optional):
//   BENCH_DURATION          measured seconds of tools/call per scenario, split over the rounds (10);
//                           the OAuth tokens live 900 s (the palette's maximum), which bounds it
//   BENCH_ROUNDS            interleaved rounds (5); 1 measures each scenario in one go
//   BENCH_WARMUP            warm-up seconds per scenario before the first round (5)
//   BENCH_LIST_DURATION     seconds of loaded tools/list per 500-tool server (3)
//   BENCH_PENDING           calls pending at once (10000); 200 are held and released once before the
//                           heap is first read, so code compiled on first use is not counted per call
//   BENCH_SOAK_CALLS        soak length in calls (100000); BENCH_SOAK_MAX_SECONDS caps it (240)
//   BENCH_ONLY              comma list of phases: baseline (R, A, B and H), floor (R alone), local, content, oneport, oauth,
//                           relay, list, pending, soak, state (sealing and opening a 2026-07-28 requestState, in this process),
//                           ha (OAuth + Redis Sentinel and OAuth + Redis Cluster beside OAuth + one Redis)
//   BENCH_LIST_REFERENCE    tools/list calls/s of this package's Local 500-tool endpoint at 32
//                           connections at the previous landing, on this machine; the list target
//                           (≥ 3×) is evaluated against it (default: report.mjs LIST_500_AT_LANDING)
//   BENCH_CPU_PROF          directory: every server process runs with --cpu-prof and writes its profile
//                           there (summarize one with `node bench/profile-summary.mjs <file>`)
//   BENCH_HEAP_SNAPSHOTS    directory: Node-RED heap snapshots before and with the calls pending
//   BENCH_LOG_LEVEL         Node-RED's console log level (info, its default); warn leaves out the audit
//                           line every OAuth call writes to stdout, to show what that write costs
//   BENCH_ERA               protocol revision of the measured calls: legacy (2025-11-25, default) or
//                           modern (2026-07-28)
//   BENCH_SCENARIOS         comma list of scenario ids (local-1, relay-1, read-1, ...) to measure instead of
//                           every scenario of the selected phases: one path alone, as for a CPU profile
//   BENCH_FIXTURE           a node_modules with the palette to load instead of .runtime-fixture's
//   BENCH_V8_FLAGS          V8 flags of every server process (default --no-memory-reducer: between
//                           its slices a server idles, and the reducer would shrink its heap; see
//                           SERVER_V8_FLAGS in node-red.mjs); '' runs them with V8's defaults
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../dist/test/support/ports.js';
import { startClusterDeployment } from '../dist/test/support/redis-cluster.js';
import { startRedis } from '../dist/test/support/redis-server.js';
import { startSentinelDeployment } from '../dist/test/support/redis-sentinel.js';
import { startTestIdp } from '../dist/test/support/test-idp.js';
import { signedInClient, TestOAuthProvider } from '../dist/test/support/oauth-client.js';
import { ASK_ANSWER, ASK_TOOL, BRIDGE_CLIENT, CLIENT_ID, CONTENT_COUNTS, GROUP_SET_CALLERS, HAND_WIRED_PATH, LOCAL_TOOL_COUNTS, OAUTH_TOOL_COUNT, ONE_PORT_PATH, PROGRESS_PATH, PROGRESS_TOOL, RELAY_ASK_TOOL, RELAY_CONTENT_PATH, RELAY_CONTENT_SITE, RELAY_HOLD_SITE, RELAY_HOLD_TOOL, RELAY_PATH, RELAY_PROGRESS_TOOL, RELAY_PROMPT, RELAY_READ_TEMPLATED_URI, RELAY_READ_URI, RELAY_SITE, RELAY_SLOW_PATH, RELAY_TOOL, handWiredFlows, localFlows, oauthCallbacks, oauthFlows, relayEdgeFlows, relayHubFlows } from './flows.mjs';
import { CALL, ERA, GET_PROMPT, LIST, PROGRESS_TOKEN, READ, READ_TEMPLATED, READ_VIEW, askLatencySamples, tokenCall, combineSlices, latencyPercentiles, latencySamples, loadOptions, measureSlice, parseRpc, post, progressCall, rpc, sameMessages, sequentialLatency, sseMessages, warmUp } from './load.mjs';
import { cleanupFixture, repoRoot, SERVER_V8_FLAGS, startBenchNodeRed } from './node-red.mjs';
import { evaluateTargets, listReference, renderMarkdown } from './report.mjs';
import { pendingTasksTest, pendingTest, soakTest } from './scale.mjs';
import { measureRequestState } from './request-state.mjs';

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};
const CONFIG = {
  connections: 32,
  duration: number('BENCH_DURATION', 10),
  rounds: Math.max(1, Math.round(number('BENCH_ROUNDS', 5))),
  warmup: number('BENCH_WARMUP', 5),
  sliceWarmup: 1,
  listDuration: number('BENCH_LIST_DURATION', 3),
  pending: Math.min(10_000, number('BENCH_PENDING', 10_000)),
  soakCalls: number('BENCH_SOAK_CALLS', 100_000),
  soakCapSeconds: number('BENCH_SOAK_MAX_SECONDS', 240),
};
const PHASES = new Set((process.env.BENCH_ONLY ?? 'baseline,floor,local,content,oneport,oauth,relay,list,pending,soak,state,ha').split(',').map((phase) => phase.trim()));
const ONLY_SCENARIOS = process.env.BENCH_SCENARIOS ? new Set(process.env.BENCH_SCENARIOS.split(',').map((id) => id.trim())) : undefined;
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const SNAPSHOTS = process.env.BENCH_HEAP_SNAPSHOTS ? resolve(process.env.BENCH_HEAP_SNAPSHOTS) : undefined;
// One file per era, and a partial run (BENCH_ONLY) never overwrites a full one.
const RESULTS_FILE = `results${ERA === 'modern' ? '-modern' : ''}${process.env.BENCH_ONLY ? '-partial' : ''}.json`;
const startedAt = Date.now();
const log = (text) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${text}`);

const versionOf = (path) => {
  try {
    return JSON.parse(readFileSync(join(repoRoot, 'node_modules', path, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
};

const results = {
  meta: {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    nodeRed: versionOf('node-red'),
    sdk: versionOf('@modelcontextprotocol/server'),
    autocannon: versionOf('autocannon'),
    connections: CONFIG.connections,
    durationSeconds: CONFIG.duration,
    rounds: CONFIG.rounds,
    warmupSeconds: CONFIG.warmup,
    fixture: process.env.BENCH_FIXTURE ?? '.runtime-fixture',
    era: ERA,
    serverV8Flags: SERVER_V8_FLAGS,
    listReference: listReference(),
    loadBefore: loadavg(),
    loadAfter: undefined,
    config: CONFIG,
    phases: [...PHASES],
  },
  calls: [],
  lists: [],
  pendingBaseline: undefined,
  pending: undefined,
  relay: undefined,
  soak: undefined,
  targets: [],
};

// --- servers ------------------------------------------------------------------------------------

/** A bare-SDK server in a child process. */
async function startBaseline(tools, { hold = false } = {}) {
  const port = await freePort();
  return startServerProcess(`baseline-${tools}`, port, ['--expose-gc', join(repoRoot, 'bench', 'baseline-server.mjs'), String(tools), String(port), ...(hold ? ['hold'] : [])]);
}

/** Baseline R, the floor: a raw node:http server answering the same tools/call from memory, in a child process. */
async function startRaw() {
  const port = await freePort();
  return startServerProcess('raw', port, [join(repoRoot, 'bench', 'raw-server.mjs'), String(port), ERA]);
}

/** A small server process of the bench's own that prints `listening` when ready. */
async function startServerProcess(name, port, scriptArgs) {
  const profile = CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF, '--cpu-prof-name', `${name}-${Date.now()}.cpuprofile`] : [];
  const args = [...SERVER_V8_FLAGS, ...profile, ...scriptArgs];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  await new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} server did not start`)), 15_000);
    child.stdout.on('data', (chunk) => {
      if (chunk.toString().includes('listening')) {
        clearTimeout(timer);
        resolveReady();
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} server exited (${code})`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
      process.removeListener('exit', killOnExit);
    },
  };
}

async function waitForPath(url, nodeRed) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const response = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }));
      if (response.status !== 404) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      const problems = nodeRed.output().split('\n').filter((line) => /\[(error|warn)\]/.test(line)).slice(-10).join('\n');
      throw new Error(`${url} did not start; Node-RED said:\n${problems}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function startLocalNodeRed() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const content = PHASES.has('content');
  const onePort = PHASES.has('oneport');
  // The references of the relayed progress and question calls.
  const progress = PHASES.has('relay');
  log(`starting Node-RED with Local endpoints (${LOCAL_TOOL_COUNTS.join(', ')} tools, /slow, /ctl${content ? `, ${CONTENT_COUNTS.join(', ')} resources and prompts` : ''}${onePort ? `, ${ONE_PORT_PATH} on Node-RED's own port` : ''}${progress ? `, ${PROGRESS_PATH} (progress, a question)` : ''})`);
  const nodeRed = await startBenchNodeRed(localFlows(port, { pending: CONFIG.pending, content, onePort, progress }), { cpuProfDir: CPU_PROF });
  for (const count of LOCAL_TOOL_COUNTS) await waitForPath(`${base}/t${count}`, nodeRed);
  if (content) for (const count of CONTENT_COUNTS) await waitForPath(`${base}/c${count}`, nodeRed);
  if (progress) await waitForPath(`${base}${PROGRESS_PATH}`, nodeRed);
  if (onePort) await waitForPath(`${nodeRed.adminUrl}${ONE_PORT_PATH}`, nodeRed);
  await waitForPath(`${base}/ctl`, nodeRed);
  return { base, nodeRed, stop: () => nodeRed.stop() };
}

/** Baseline H: Node-RED without the palette's nodes in its flows, one hand-wired http in → function → http response. */
async function startHandWiredNodeRed() {
  log('starting Node-RED with Baseline H (core nodes wired by hand)');
  const nodeRed = await startBenchNodeRed(handWiredFlows(), { cpuProfDir: CPU_PROF });
  const url = `${nodeRed.adminUrl}${HAND_WIRED_PATH}`;
  await waitForPath(url, nodeRed);
  const { body, headers } = rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } });
  const initialized = parseRpc((await post(url, body, headers)).body);
  if (!initialized?.result?.capabilities?.tools || initialized.result.serverInfo?.name !== 'hand-wired') {
    await nodeRed.stop();
    throw new Error(`Baseline H answered initialize with ${JSON.stringify(initialized).slice(0, 400)}`);
  }
  return { url, nodeRed, stop: () => nodeRed.stop() };
}

/** The pid of the redis-server listening on `port` (its process title names the address). */
function redisPid(port) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined; // not Linux: the Redis share of server CPU is left out
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('redis-server') && cmdline.includes(`:${port}`)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** One redis-server for the run, shared by the OAuth + Redis endpoint and edge relaying (slices never overlap). */
async function startSharedRedis() {
  const redis = await startRedis();
  return { ...redis, pid: redisPid(redis.port) };
}

/**
 * Node-RED with OAuth endpoints (`modes`: mem, redis, sentinel, cluster; flows.mjs oauthFlows) and the
 * test IdP, on the run's Redis (and `env`'s Sentinel group and Cluster); signs in once per endpoint.
 */
async function startOAuthNodeRed(redis, modes, env = {}) {
  const ports = {};
  for (const mode of modes) ports[mode] = await freePort();
  const idp = await startTestIdp({
    clients: [{ client_id: BRIDGE_CLIENT.id, client_secret: BRIDGE_CLIENT.secret, redirect_uris: oauthCallbacks(ports) }],
    users: GROUP_SET_CALLERS.map(({ username, groups }) => ({ username, email: `${username}@example.test`, name: username, groups })),
  });
  let nodeRed;
  const stop = async () => {
    await nodeRed?.stop();
    await idp.stop();
  };
  try {
    log(`starting Node-RED with OAuth endpoints (${OAUTH_TOOL_COUNT} tools each; storage: ${modes.join(', ')})`);
    nodeRed = await startBenchNodeRed(oauthFlows(ports, idp.issuer), {
      env: { MCP_BENCH_OIDC_SECRET: BRIDGE_CLIENT.secret, MCP_BENCH_REDIS_URL: redis.url, ...env },
      cpuProfDir: CPU_PROF,
    });
    const endpoints = {};
    for (const mode of modes) {
      const url = `http://127.0.0.1:${ports[mode]}/${mode}`;
      await waitForPath(url, nodeRed);
      const unauthenticated = await post(url, CALL.body, CALL.headers);
      if (unauthenticated.status !== 401) throw new Error(`${url} answered ${unauthenticated.status} without a token`);
      // The official client's sign-in, as Claude Code does it; the bench then uses its token. On
      // /groups each caller of GROUP_SET_CALLERS signs in (by its name), elsewhere alice.
      for (const username of mode === 'groups' ? GROUP_SET_CALLERS.map((caller) => caller.username) : ['alice']) {
        const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
        const client = await signedInClient(url, provider, idp, username);
        await client.close();
        if (!provider.accessToken) throw new Error(`no access token after signing in at ${url} as ${username}`);
        endpoints[mode === 'groups' ? `groups-${username}` : mode] = { url, headers: { authorization: `Bearer ${provider.accessToken}` } };
        log(`  signed in at ${url}${mode === 'groups' ? ` as ${username}` : ''}`);
      }
    }
    return { nodeRed, endpoints, redisPid: redis.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Phase `ha`: a Redis Sentinel group (primary, two replicas, three sentinels) and a three-primary Redis
 * Cluster on loopback, started as the runtime tests start them (test/support/redis-sentinel.ts,
 * redis-cluster.ts); `env` names them for the OAuth Node-RED's /sentinel and /cluster storage.
 */
async function startHighAvailability() {
  log('starting a Redis Sentinel group (primary, 2 replicas, 3 sentinels) and a Redis Cluster (3 primaries)');
  const sentinel = await startSentinelDeployment();
  const cluster = await startClusterDeployment().catch(async (error) => {
    await sentinel.stop();
    throw error;
  });
  return {
    env: { MCP_BENCH_SENTINELS: sentinel.sentinels, MCP_BENCH_CLUSTER_NODES: cluster.nodes },
    stop: async () => {
      await Promise.all([sentinel.stop(), cluster.stop()]);
    },
  };
}

/** Polls tools/list until the hub lists `expected` tools: the edge's first announcement has arrived. */
async function waitForTools(url, expected, nodeRed) {
  await waitForPath(url, nodeRed);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const tools = parseRpc((await post(url, LIST.body, LIST.headers)).body)?.result?.tools;
    if (tools?.length === expected) return;
    if (Date.now() > deadline) throw new Error(`${url} listed ${tools?.length} tools after 30 s, expected ${expected} from the edge`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** Edge relaying: an edge Node-RED and a hub Node-RED, each in its own process, on the run's Redis. */
async function startRelay(redis) {
  const ports = { hub: await freePort(), edge: await freePort() };
  const options = { env: { MCP_BENCH_REDIS_URL: redis.url }, cpuProfDir: CPU_PROF };
  let hub;
  let edge;
  const stop = async () => {
    await hub?.stop();
    await edge?.stop();
  };
  try {
    log(`starting the edge Node-RED (sites ${RELAY_SITE}, ${RELAY_HOLD_SITE}, ${RELAY_CONTENT_SITE}) and the hub Node-RED that relays to them through Redis`);
    edge = await startBenchNodeRed(relayEdgeFlows(ports.edge, { pending: CONFIG.pending }), options);
    const edgeBase = `http://127.0.0.1:${ports.edge}`;
    await waitForPath(`${edgeBase}/ctl`, edge);
    hub = await startBenchNodeRed(relayHubFlows(ports.hub, { pending: CONFIG.pending }), options);
    const base = `http://127.0.0.1:${ports.hub}`;
    await waitForPath(`${base}/ctl`, hub);
    for (const path of [RELAY_PATH, RELAY_SLOW_PATH]) await waitForTools(`${base}${path}`, 1, hub);
    // Site plant-c's announcement brings its two tools with its resource, template and prompt.
    await waitForTools(`${base}${RELAY_CONTENT_PATH}`, 2, hub);
    // CPU profiles are named by pid: these tell the hub's from the edge's.
    log(`  hub pid ${hub.pid}, edge pid ${edge.pid}, redis-server pid ${redis.pid ?? 'unknown'}`);
    return { base, edgeBase, hub, edge, serverPids: [hub.pid, edge.pid, ...(redis.pid ? [redis.pid] : [])], stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// --- measurements -------------------------------------------------------------------------------

/** Checks one answer before loading a server and returns it: every answer under load must equal it. */
async function expectedCallBody(url, headers = {}, call = CALL) {
  const response = await post(url, call.body, { ...call.headers, ...headers });
  const message = response.status === 200 ? parseRpc(response.body) : undefined;
  if (message?.result?.content?.[0]?.text !== 'hi' || message.result.isError) {
    throw new Error(`tools/call on ${url} answered ${response.status}: ${response.body.slice(0, 400)}`);
  }
  return response.body;
}

async function checkToolCount(url, expected, headers = {}) {
  const response = await post(url, LIST.body, { ...LIST.headers, ...headers });
  const tools = parseRpc(response.body)?.result?.tools;
  if (!Array.isArray(tools) || tools.length !== expected) throw new Error(`tools/list on ${url} listed ${tools?.length} tools, expected ${expected}`);
}

/** A resources/read or prompts/get answer, checked once before loading; every answer under load must equal it. */
async function expectedContentBody(url, request) {
  const response = await post(url, request.body, request.headers);
  const result = response.status === 200 ? parseRpc(response.body)?.result : undefined;
  const text = result?.contents?.[0]?.text ?? result?.messages?.[0]?.content?.text;
  if (text !== 'hi' && text !== 'hi hi') throw new Error(`${url} answered ${response.status}: ${response.body.slice(0, 400)}`);
  return response.body;
}

/**
 * A tools/call with a progressToken of a tool that reports no progress, checked once before loading:
 * one message, the result `hi` (an SSE event on the 2025 revisions, as the SDK answers; JSON on
 * 2026-07-28). Every answer under load must carry the same message.
 */
async function expectedTokenCallBody(url, call) {
  const response = await post(url, call.body, call.headers);
  const messages = response.status === 200 ? sseMessages(response.body) : [];
  const [answer] = messages;
  if (messages.length !== 1 || answer?.id !== 1 || answer.result?.content?.[0]?.text !== 'hi' || answer.result.isError) {
    throw new Error(`tools/call with a progress token on ${url} answered ${response.status} (${response.headers['content-type']}): ${response.body.slice(0, 400)}`);
  }
  return response.body;
}

/**
 * A tools/call with a progressToken, checked once before loading: an SSE stream whose messages are
 * the progress report (1 of 1, the request's token) and then the result `hi`. Every answer under load
 * must carry the same messages (flows.mjs progress_0; load.mjs sameMessages).
 */
async function expectedProgressBody(url, call) {
  const response = await post(url, call.body, call.headers);
  const fail = () => new Error(`tools/call with progress on ${url} answered ${response.status} (${response.headers['content-type']}): ${response.body.slice(0, 400)}`);
  if (response.status !== 200 || !String(response.headers['content-type']).startsWith('text/event-stream')) throw fail();
  const [progress, answer, ...more] = sseMessages(response.body);
  const reported = progress?.method === 'notifications/progress' && progress.params?.progressToken === PROGRESS_TOKEN && progress.params.progress === 1 && progress.params.total === 1;
  if (!reported || more.length > 0 || answer?.id !== 1 || answer.result?.content?.[0]?.text !== 'hi' || answer.result.isError) throw fail();
  return response.body;
}

/**
 * The measured request of every scenario (tools/call of echo_0 unless it names its own `request`, or
 * its own tools/call as `call`, with `progress` a call answered as an SSE stream): warm-up each, then
 * `rounds` interleaved slices (order rotating).
 */
async function measureCalls(scenarios) {
  for (const scenario of scenarios) {
    const request = scenario.request ?? scenario.call ?? CALL;
    let expectBody;
    let verifyBody;
    if (scenario.request) {
      expectBody = await expectedContentBody(scenario.url, request);
    } else if (scenario.progress === 'none') {
      // A token and no progress: the answer's framing differs by era, its one message must not.
      await checkToolCount(scenario.url, scenario.toolCount ?? scenario.tools, scenario.headers);
      expectBody = await expectedTokenCallBody(scenario.url, request);
      verifyBody = sameMessages(expectBody);
    } else if (scenario.progress) {
      await checkToolCount(scenario.url, scenario.toolCount ?? scenario.tools, scenario.headers);
      expectBody = await expectedProgressBody(scenario.url, request);
      verifyBody = sameMessages(expectBody);
    } else {
      await checkToolCount(scenario.url, scenario.toolCount ?? scenario.tools, scenario.headers);
      expectBody = await expectedCallBody(scenario.url, scenario.headers, request);
    }
    scenario.options = loadOptions({ url: scenario.url, body: request.body, headers: { ...request.headers, ...scenario.headers }, expectBody, verifyBody, connections: CONFIG.connections });
    scenario.slices = [];
    scenario.load = [];
    log(`${scenario.label}, ${scenario.tools} tool(s): warm-up ${CONFIG.warmup} s`);
    await warmUp(scenario.options, CONFIG.warmup);
  }
  const sliceSeconds = CONFIG.duration / CONFIG.rounds;
  for (let round = 0; round < CONFIG.rounds; round += 1) {
    log(`round ${round + 1} of ${CONFIG.rounds}: ${scenarios.length} scenarios, ${sliceSeconds.toFixed(1)} s each`);
    for (let k = 0; k < scenarios.length; k += 1) {
      const scenario = scenarios[(k + round) % scenarios.length];
      await warmUp(scenario.options, CONFIG.sliceWarmup);
      scenario.load.push(loadavg()[0]);
      const slice = await measureSlice(scenario.options, sliceSeconds, scenario.serverPids);
      scenario.slices.push(slice);
      log(`  ${scenario.label}, ${scenario.tools}: ${(slice.calls / slice.seconds).toFixed(0)} calls/s`);
    }
  }
  for (const scenario of scenarios) {
    const row = { id: scenario.id, label: scenario.label, tools: scenario.tools, ...combineSlices(scenario.slices, scenario.options), loadAverage: scenario.load };
    results.calls.push(row);
    log(`${row.label}, ${row.tools}: ${row.callsPerSecond.toFixed(0)} calls/s, p50 ${row.p50} ms, p99 ${row.p99} ms, server CPU ${row.serverCpuUsPerCall?.toFixed(0)} µs/call, faults ${row.errors + row.timeouts + row.non2xx + row.mismatches}`);
  }
}

async function measureList({ id, label, url, headers = {}, serverPids, tools = 500 }) {
  await checkToolCount(url, tools, headers);
  log(`${label}: tools/list of ${tools} tools`);
  const sequential = await sequentialLatency(url, LIST.body, { ...LIST.headers, ...headers }, 200);
  const options = loadOptions({ url, body: LIST.body, headers: { ...LIST.headers, ...headers }, connections: CONFIG.connections });
  await warmUp(options, 1);
  const loaded = combineSlices([await measureSlice(options, CONFIG.listDuration, serverPids)], options);
  results.lists.push({ id, label, sequential, loaded });
  log(`  one at a time p50 ${sequential.p50.toFixed(2)} ms; 32 connections ${loaded.callsPerSecond.toFixed(0)} lists/s, p50 ${loaded.p50} ms`);
}

/**
 * The latency one relayed call adds: calls one at a time on one connection, the Local 1-tool endpoint
 * and the hub alternating in every round (order rotating), so both see the same background load.
 */
async function measureRelayLatency(localUrl, relayUrl) {
  const perRound = 200;
  const samples = { local: [], relayed: [] };
  const addedP50 = [];
  for (let round = 0; round < CONFIG.rounds; round += 1) {
    const order = round % 2 === 0 ? ['local', 'relayed'] : ['relayed', 'local'];
    const roundP50 = {};
    for (const which of order) {
      const [url, call] = which === 'local' ? [localUrl, CALL] : [relayUrl, RELAY_CALL];
      const taken = await latencySamples(url, call.body, call.headers, perRound);
      samples[which].push(...taken);
      roundP50[which] = latencyPercentiles(taken).p50;
    }
    addedP50.push(roundP50.relayed - roundP50.local);
  }
  const local = latencyPercentiles(samples.local);
  const relayed = latencyPercentiles(samples.relayed);
  return { local, relayed, addedP50Ms: relayed.p50 - local.p50, roundsAddedP50Ms: addedP50 };
}

/**
 * 2026-07-28 only: a call whose flow asks one question, one exchange at a time on one connection
 * (the call, answered `input_required` with a sealed requestState, then the retry with the answer,
 * answered `hi`), Local /p1 and the hub's /rc alternating in every round (order rotating). A wrong
 * answer to either request counts as an error and leaves that exchange out of the latency.
 */
async function measureAskLatency(localUrl, relayUrl) {
  const perRound = 100;
  const samples = { local: [], relayed: [] };
  const errors = { local: 0, relayed: 0 };
  const addedP50 = [];
  for (let round = 0; round < CONFIG.rounds; round += 1) {
    const order = round % 2 === 0 ? ['local', 'relayed'] : ['relayed', 'local'];
    const roundP50 = {};
    for (const which of order) {
      const [url, tool] = which === 'local' ? [localUrl, ASK_TOOL] : [relayUrl, RELAY_ASK_TOOL];
      const taken = await askLatencySamples(url, tool, ASK_ANSWER, perRound);
      samples[which].push(...taken.samples);
      errors[which] += taken.errors;
      roundP50[which] = latencyPercentiles(taken.samples).p50;
    }
    addedP50.push(roundP50.relayed - roundP50.local);
  }
  const local = latencyPercentiles(samples.local);
  const relayed = latencyPercentiles(samples.relayed);
  return { local, relayed, addedP50Ms: relayed.p50 - local.p50, roundsAddedP50Ms: addedP50, errors };
}

// --- main ---------------------------------------------------------------------------------------

const RELAY_CALL = rpc(1, 'tools/call', { name: RELAY_TOOL, arguments: { text: 'hi' } });
// What /c1 reads and gets (load.mjs READ, READ_TEMPLATED, GET_PROMPT), under the hub's names.
const RELAY_READ = rpc(1, 'resources/read', { uri: RELAY_READ_URI });
const RELAY_READ_TEMPLATED = rpc(1, 'resources/read', { uri: RELAY_READ_TEMPLATED_URI });
const RELAY_GET_PROMPT = rpc(1, 'prompts/get', { name: RELAY_PROMPT, arguments: { who: 'hi' } });

const once = (stop) => {
  let stopping;
  return () => (stopping ??= stop());
};

async function main() {
  log(`bench: ${JSON.stringify(CONFIG)}; phases ${[...PHASES].join(', ')}; server V8 flags ${SERVER_V8_FLAGS.join(' ') || 'none'}; load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  if (CPU_PROF) mkdirSync(CPU_PROF, { recursive: true });
  if (SNAPSHOTS) mkdirSync(SNAPSHOTS, { recursive: true });
  const running = [];
  const scenarios = [];
  const lists = [];
  try {
    if (PHASES.has('state')) {
      results.requestState = measureRequestState();
      const r = results.requestState;
      log(`requestState: seal ${r.sealUs.toFixed(1)} µs, open ${r.openUs.toFixed(1)} µs, ${r.bytes} bytes`);
    }
    if (PHASES.has('baseline') || PHASES.has('floor')) {
      const r = await startRaw();
      running.push(r);
      scenarios.push({ id: 'R', label: 'Baseline R: raw node:http, answered from memory', tools: 1, url: r.url, serverPids: [r.pid] });
    }
    if (PHASES.has('baseline')) {
      const a = await startBaseline(1);
      running.push(a);
      const b = await startBaseline(500);
      running.push(b);
      scenarios.push({ id: 'A', label: 'Baseline A: bare SDK, registerTool', tools: 1, url: a.url, serverPids: [a.pid] });
      scenarios.push({ id: 'B', label: 'Baseline B: bare SDK, registerTool', tools: 500, url: b.url, serverPids: [b.pid] });
      lists.push({ id: 'B', label: 'Baseline B: bare SDK, registerTool', url: b.url, serverPids: [b.pid] });
      const h = await startHandWiredNodeRed();
      running.push(h);
      scenarios.push({ id: 'H', label: 'Baseline H: core nodes, http in → function → http response', tools: 1, url: h.url, serverPids: [h.nodeRed.pid] });
    }
    let local;
    if (['local', 'content', 'oneport', 'pending', 'soak', 'relay'].some((phase) => PHASES.has(phase))) {
      local = await startLocalNodeRed();
      running.push(local);
      // The relayed and one-port calls' reference is the Local 1-tool endpoint, in the same rounds.
      const localCounts = PHASES.has('local') ? LOCAL_TOOL_COUNTS : PHASES.has('relay') || PHASES.has('oneport') ? [1] : [];
      for (const count of localCounts) {
        scenarios.push({ id: `local-${count}`, label: 'this package, Local', tools: count, url: `${local.base}/t${count}`, serverPids: [local.nodeRed.pid] });
      }
      if (PHASES.has('local')) {
        scenarios.push({ id: 'token-1', label: 'this package, Local, tools/call with a progress token', tools: 1, url: `${local.base}/t1`, call: tokenCall('echo_0'), progress: 'none', serverPids: [local.nodeRed.pid] });
      }
      if (PHASES.has('oneport')) {
        scenarios.push({ id: 'oneport-1', label: "this package, Local, on Node-RED's own port", tools: 1, url: `${local.nodeRed.adminUrl}${ONE_PORT_PATH}`, serverPids: [local.nodeRed.pid] });
      }
      if (PHASES.has('local')) lists.push({ id: 'local-500', label: 'this package, Local', url: `${local.base}/t500`, serverPids: [local.nodeRed.pid] });
      if (PHASES.has('content')) {
        // The `tools` column counts the endpoint's resources or prompts for these rows.
        for (const count of CONTENT_COUNTS) {
          const content = { tools: count, url: `${local.base}/c${count}`, serverPids: [local.nodeRed.pid] };
          scenarios.push({ id: `ccall-${count}`, label: 'this package, Local, tools/call beside the content', ...content, toolCount: 1 });
          scenarios.push({ id: `read-${count}`, label: 'this package, Local, resources/read, fixed URI', ...content, request: READ });
          scenarios.push({ id: `tread-${count}`, label: 'this package, Local, resources/read, URI template', ...content, request: READ_TEMPLATED });
          scenarios.push({ id: `view-${count}`, label: 'this package, Local, resources/read, MCP Apps view', ...content, request: READ_VIEW });
          scenarios.push({ id: `prompt-${count}`, label: 'this package, Local, prompts/get', ...content, request: GET_PROMPT });
        }
      }
    }
    let sharedRedis;
    if (PHASES.has('oauth') || PHASES.has('relay') || PHASES.has('ha')) {
      sharedRedis = await startSharedRedis();
      running.push(sharedRedis);
    }
    if (PHASES.has('oauth') || PHASES.has('ha')) {
      const ha = PHASES.has('ha') ? await startHighAvailability() : undefined;
      if (ha) running.push(ha);
      const lists500 = PHASES.has('oauth') && PHASES.has('list');
      const modes = [...(PHASES.has('oauth') ? ['mem'] : []), 'redis', ...(lists500 ? ['groups'] : []), ...(ha ? ['sentinel', 'cluster'] : [])];
      const oauth = await startOAuthNodeRed(sharedRedis, modes, ha?.env);
      running.push(oauth);
      const { mem, redis, sentinel, cluster } = oauth.endpoints;
      const redisPids = oauth.redisPid ? [oauth.nodeRed.pid, oauth.redisPid] : [oauth.nodeRed.pid];
      if (mem) scenarios.push({ id: `oauth-mem-${OAUTH_TOOL_COUNT}`, label: 'this package, OAuth + Memory', tools: OAUTH_TOOL_COUNT, ...mem, serverPids: [oauth.nodeRed.pid] });
      scenarios.push({ id: `oauth-redis-${OAUTH_TOOL_COUNT}`, label: 'this package, OAuth + Redis', tools: OAUTH_TOOL_COUNT, ...redis, serverPids: redisPids });
      if (PHASES.has('oauth')) lists.push({ id: 'oauth-redis-500', label: 'this package, OAuth + Redis', ...redis, serverPids: redisPids });
      // Access per tool: each caller's list comes from its group set's view, prebuilt once per deploy.
      if (lists500) {
        for (const { username, sees } of GROUP_SET_CALLERS) {
          const label = `this package, OAuth + Redis, access per tool: ${username} (sees ${sees})`;
          lists.push({ id: `oauth-groups-${username}`, label, tools: sees, ...oauth.endpoints[`groups-${username}`], serverPids: redisPids });
        }
      }
      // Server CPU of these two rows is Node-RED's alone: their Redis servers are several processes.
      if (sentinel) scenarios.push({ id: `oauth-sentinel-${OAUTH_TOOL_COUNT}`, label: 'this package, OAuth + Redis Sentinel', tools: OAUTH_TOOL_COUNT, ...sentinel, serverPids: [oauth.nodeRed.pid] });
      if (cluster) scenarios.push({ id: `oauth-cluster-${OAUTH_TOOL_COUNT}`, label: 'this package, OAuth + Redis Cluster', tools: OAUTH_TOOL_COUNT, ...cluster, serverPids: [oauth.nodeRed.pid] });
    }
    let relay;
    if (PHASES.has('relay')) {
      relay = await startRelay(sharedRedis);
      running.push(relay);
      scenarios.push({ id: 'relay-1', label: 'this package, relayed: hub → Redis → edge', tools: 1, url: `${relay.base}${RELAY_PATH}`, call: RELAY_CALL, serverPids: relay.serverPids });
      // Site plant-c through the hub's /rc: a read of a fixed URI and of a template, a prompt, and a
      // call with progress beside its Local reference on /p1 (the reads' and prompt's references are
      // the content phase's read-1, tread-1 and prompt-1; report.mjs).
      const hubContent = { url: `${relay.base}${RELAY_CONTENT_PATH}`, serverPids: relay.serverPids };
      scenarios.push({ id: 'relay-read', label: 'this package, relayed, resources/read, fixed URI', tools: 1, ...hubContent, request: RELAY_READ });
      scenarios.push({ id: 'relay-tread', label: 'this package, relayed, resources/read, URI template', tools: 1, ...hubContent, request: RELAY_READ_TEMPLATED });
      scenarios.push({ id: 'relay-prompt', label: 'this package, relayed, prompts/get', tools: 1, ...hubContent, request: RELAY_GET_PROMPT });
      scenarios.push({ id: 'progress-1', label: 'this package, Local, tools/call with progress (SSE)', tools: 2, url: `${local.base}${PROGRESS_PATH}`, call: progressCall(PROGRESS_TOOL), progress: true, serverPids: [local.nodeRed.pid] });
      scenarios.push({ id: 'relay-progress', label: 'this package, relayed, tools/call with progress (SSE)', tools: 2, ...hubContent, call: progressCall(RELAY_PROGRESS_TOOL), progress: true });
    }
    for (const server of running) server.stop = once(server.stop);
    const measured = ONLY_SCENARIOS ? scenarios.filter(({ id }) => ONLY_SCENARIOS.has(id)) : scenarios;
    if (measured.length > 0) await measureCalls(measured);
    if (relay) {
      log('relayed vs Local, one call at a time');
      results.relay = { latency: await measureRelayLatency(`${local.base}/t1`, `${relay.base}${RELAY_PATH}`) };
      const l = results.relay.latency;
      log(`  p50 ${l.relayed.p50.toFixed(2)} ms relayed, ${l.local.p50.toFixed(2)} ms Local: ${l.addedP50Ms.toFixed(2)} ms added`);
      if (ERA === 'modern') {
        log('a call that asks once (input_required, then the retry with the answer), relayed vs Local, one exchange at a time');
        results.relay.asking = await measureAskLatency(`${local.base}${PROGRESS_PATH}`, `${relay.base}${RELAY_CONTENT_PATH}`);
        const q = results.relay.asking;
        log(`  p50 ${q.relayed.p50.toFixed(2)} ms relayed, ${q.local.p50.toFixed(2)} ms Local: ${q.addedP50Ms.toFixed(2)} ms added; wrong answers ${q.errors.relayed} relayed, ${q.errors.local} Local`);
      }
    }
    if (PHASES.has('list')) for (const list of lists) await measureList(list);
    // Only the local Node-RED (and the relay's hub, edge and Redis) work from here on; the other
    // servers would just sit idle.
    const busy = new Set(relay && CONFIG.pending > 0 ? [local, relay, sharedRedis] : [local]);
    // Newest first: Node-RED processes stop before the Redis they use.
    for (const server of running.filter((server) => !busy.has(server)).reverse()) await server.stop();
    // The Local figure is the relayed one's reference: measured for it when `pending` is not selected.
    if (local && (PHASES.has('pending') || relay) && CONFIG.pending > 0) {
      if (PHASES.has('pending')) {
        // The same check against the bare SDK: how much of a pending call's memory is the SDK's own.
        log(`${CONFIG.pending} calls pending at once on the bare SDK (reference)`);
        const reference = await startBaseline(1, { hold: true });
        try {
          results.pendingBaseline = await pendingTest({ base: reference.base, count: CONFIG.pending, capSeconds: 180, log });
          log(`  ${results.pendingBaseline.kbPerPendingCall.toFixed(1)} KB heap per pending call`);
        } finally {
          await reference.stop();
        }
      }
      log(`${CONFIG.pending} calls pending at once`);
      results.pending = await pendingTest({ base: local.base, count: CONFIG.pending, capSeconds: 180, log, snapshotDir: SNAPSHOTS });
      const p = results.pending;
      log(`  answered ${p.answered}, lost ${p.lost}, duplicated ${p.duplicated}; ${p.kbPerPendingCall.toFixed(1)} KB heap per pending call; heap after ${p.heapAfterDeltaMb.toFixed(1)} MB vs before`);
      log(`${CONFIG.pending} tasks pending at once`);
      results.pendingTasks = await pendingTasksTest({ base: local.base, count: CONFIG.pending, capSeconds: 180, log });
      const t = results.pendingTasks;
      log(`  completed ${t.completed}, lost ${t.lost}, mismatched ${t.mismatched}; ${t.kbPerPendingTask.toFixed(1)} KB heap per pending task`);
      // Why a task was not started or answered (a cap, a timeout) names the cause instead of only a count.
      if (Object.keys(t.failures).length > 0) log(`  failures: ${JSON.stringify(t.failures)}`);
    }
    if (relay && CONFIG.pending > 0) {
      log(`${CONFIG.pending} relayed calls pending at once (held by the edge's flow)`);
      results.relay.pending = await pendingTest({
        base: relay.base,
        control: relay.edgeBase,
        url: `${relay.base}${RELAY_SLOW_PATH}`,
        tool: RELAY_HOLD_TOOL,
        count: CONFIG.pending,
        capSeconds: 180,
        log,
        snapshotDir: SNAPSHOTS,
      });
      const p = results.relay.pending;
      log(`  answered ${p.answered}, lost ${p.lost}, duplicated ${p.duplicated}; ${p.kbPerPendingCall.toFixed(1)} KB heap per pending call on the hub, ${p.control.kbPerPendingCall.toFixed(1)} KB on the edge`);
      await relay.stop();
    }
    if (local && PHASES.has('soak') && CONFIG.soakCalls > 0) {
      log(`soak: ${CONFIG.soakCalls} calls at ${CONFIG.connections} connections (cap ${CONFIG.soakCapSeconds} s)`);
      results.soak = await soakTest({ base: local.base, calls: CONFIG.soakCalls, connections: CONFIG.connections, capSeconds: CONFIG.soakCapSeconds, sampleEvery: 10_000, log });
      const s = results.soak;
      log(`  lost ${s.lost}, duplicated ${s.duplicated}, mismatched ${s.mismatched}; heap growth ${s.heapGrowthMb.toFixed(2)} MB`);
    }
  } finally {
    for (const server of [...running].reverse()) await server.stop().catch(() => undefined);
    cleanupFixture();
  }
  results.meta.loadAfter = loadavg();
  results.meta.totalSeconds = (Date.now() - startedAt) / 1000;
  results.targets = evaluateTargets(results);
  writeFileSync(join(repoRoot, 'bench', RESULTS_FILE), `${JSON.stringify(results, null, 2)}\n`);
  console.log('');
  console.log(renderMarkdown(results));
  console.log('');
  log(`wrote bench/${RESULTS_FILE}${CPU_PROF ? `; CPU profiles in ${CPU_PROF}` : ''}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    cleanupFixture();
    process.exit(1);
  },
);
