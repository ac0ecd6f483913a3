// The flows the bench deploys, built with the runtime tests' own builders (test/support/flows.ts).
import { answer, appView, clusterStorage, flowServer, oauthServer, oidcAuth, prompt, resource, runtime, runtimeWithBaseUrl, sentinelStorage, storage, tab, tool } from '../dist/test/support/flows.js';
import { SENTINEL_GROUP } from '../dist/test/support/redis-sentinel.js';
import { claudeLikeDocument } from '../dist/test/support/oauth-client.js';

export const ECHO_INPUT = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
export const LOCAL_TOOL_COUNTS = [1, 100, 500];
export const OAUTH_TOOL_COUNT = 500;
/** Resources and prompts per content endpoint (/c1, /c500): resources/read and prompts/get flatness. */
export const CONTENT_COUNTS = [1, 500];
export const CLIENT_ID = 'https://client.test/oauth/claude-like.json';
export const BRIDGE_CLIENT = { id: 'node-red-bridge', secret: 'bridge-secret-for-bench' };

// The one-node flow that answers every call: the arguments' text, back as the result.
const ECHO = `msg.topic = 'mcp-tool-response';
msg.payload = { executionId: msg.payload.executionId, result: msg.payload.arguments.text };
return msg;`;

// Holds each call until the bench releases them all, so every call is pending at the same moment.
// The hold node registers its release function on the probe; the control flow calls it. Calls that run
// as tasks (/tslow) are held in a list of their own, so each hold node answers its own endpoint.
const holdBody = (list, release) => `const probe = global.get('benchProbe');
probe.${list} = probe.${list} || [];
if (!probe.${release}) {
  probe.${release} = () => {
    const held = probe.${list};
    probe.${list} = [];
    for (const m of held) node.send(m, false);
    return held.length;
  };
}
msg.topic = 'mcp-tool-response';
msg.payload = { executionId: msg.payload.executionId, result: msg.payload.arguments.text };
probe.${list}.push(msg);
return null;`;
const HOLD = holdBody('held', 'release');
const HOLD_TASKS = holdBody('heldTasks', 'releaseTasks');

// `heap`: process memory after a full GC; `held`: how many calls the hold node has (cheap, no GC);
// `release`: answers them all; `snapshot`: writes a heap snapshot into `dir` (BENCH_HEAP_SNAPSHOTS).
const CONTROL = `const probe = global.get('benchProbe');
let result;
if (msg.payload.toolName === 'release') result = { released: (probe.release ? probe.release() : 0) + (probe.releaseTasks ? probe.releaseTasks() : 0) };
else if (msg.payload.toolName === 'held') result = { held: probe.held.length + (probe.heldTasks ? probe.heldTasks.length : 0) };
else if (msg.payload.toolName === 'snapshot') result = { file: probe.snapshot(msg.payload.arguments.dir) };
else result = probe.memory();
msg.topic = 'mcp-tool-response';
msg.payload = { executionId: msg.payload.executionId, result };
return msg;`;

/** The /ctl endpoint of a bench Node-RED: heap and snapshot; held and release of its hold flow. */
function controlEndpoint() {
  return [
    flowServer('fs-ctl', { runtime: 'rt', path: '/ctl', wires: ['ctl'] }),
    answer('ctl', CONTROL, 'fs-ctl'),
    tool('ctl-heap', { name: 'heap', endpoint: '/ctl' }),
    tool('ctl-release', { name: 'release', endpoint: '/ctl' }),
    tool('ctl-held', { name: 'held', endpoint: '/ctl' }),
    tool('ctl-snapshot', { name: 'snapshot', endpoint: '/ctl', timeout: 300 }),
  ];
}

function echoTools(prefix, count, path, z) {
  const nodes = [];
  for (let i = 0; i < count; i += 1) {
    nodes.push({ ...tool(`${prefix}-tool-${i}`, { name: `echo_${i}`, endpoint: path, input: ECHO_INPUT, timeout: 60, z }), y: 40 + i });
  }
  return nodes;
}

// Answers every read with the text `hi`, every prompt with one message and every tool call with its
// text, in one function node.
const CONTENT_ECHO = `const { executionId } = msg.payload;
if (msg.topic === 'mcp-tool-execute') return { topic: 'mcp-tool-response', payload: { executionId, result: msg.payload.arguments.text } };
if (msg.topic === 'mcp-resource-read') return { topic: 'mcp-resource-response', payload: { executionId, contents: 'hi' } };
return { topic: 'mcp-prompt-response', payload: { executionId, messages: [{ role: 'user', content: 'hi ' + msg.payload.arguments.who }] } };`;

/** The template the bench reads on every content endpoint; the others sort before it (`s` < `t`), so a lookup trying templates in order would try them all first. */
export const READ_TEMPLATE_URI = 'bench://t/{id}';

/** An MCP Apps view on every content endpoint, answered by the flow as its fixed-URI resources are. */
export const READ_VIEW_URI = 'ui://bench/view';

/**
 * /c1 and /c500: that many flow-answered resources with fixed URIs (bench://r-N), resource templates
 * (bench://t/{id}, then bench://sN/{id}) and prompts (p_N), and one echo tool (echo_0), whose
 * tools/call rate is the reference of the endpoint's reads and prompts, and one app view (READ_VIEW_URI).
 */
function contentEndpoints() {
  const nodes = [];
  for (const count of CONTENT_COUNTS) {
    const path = `/c${count}`;
    nodes.push(flowServer(`fs-c${count}`, { runtime: 'rt', path, wires: [`content-${count}`], maxConcurrent: 64, serverName: `bench-c${count}` }));
    nodes.push(answer(`content-${count}`, CONTENT_ECHO, `fs-c${count}`));
    nodes.push(...echoTools(`c${count}`, 1, path));
    nodes.push(appView(`c${count}-view`, { uri: READ_VIEW_URI, source: 'flow', endpoint: path }));
    for (let i = 0; i < count; i += 1) {
      nodes.push({ ...resource(`c${count}-r-${i}`, { uri: `bench://r-${i}`, endpoint: path, timeout: 60 }), y: 40 + i });
      nodes.push({ ...resource(`c${count}-t-${i}`, { uri: i === 0 ? READ_TEMPLATE_URI : `bench://s${i}/{id}`, endpoint: path, timeout: 60 }), y: 40 + i });
      nodes.push({ ...prompt(`c${count}-p-${i}`, { name: `p_${i}`, endpoint: path, source: 'flow', arguments: [{ name: 'who', required: true }], timeout: 60 }), y: 40 + i });
    }
  }
  return nodes;
}

/** One-port mode's endpoint: the same one-tool echo as /t1, served on Node-RED's own HTTP server. */
export const ONE_PORT_PATH = '/n1';

/** A runtime in one-port mode (Serve on: Node-RED's own HTTP server) with /n1, as /t1. */
function onePortEndpoint() {
  return [
    { id: 'rt-np', type: 'mcp-runtime', name: '', server: 'node-red', port: '1881', host: '127.0.0.1', baseUrl: '' },
    flowServer('fs-np', { runtime: 'rt-np', path: ONE_PORT_PATH, wires: ['echo-np'], maxConcurrent: 64, serverName: 'bench-one-port' }),
    answer('echo-np', ECHO, 'fs-np'),
    ...echoTools('np', 1, ONE_PORT_PATH),
  ];
}

// The progress and asking tools (phase `relay`, Local /p1 and the edge's /ec), in one function node
// that answers reads and prompts as CONTENT_ECHO does too: progress_0 reports one step (1 of 1) then
// answers with its text; ask_0 asks one yes/no form in round 0 and answers with its text when the
// answer is yes (otherwise `declined`, which the bench counts as a wrong answer).
const ASK_REQUESTS = { go: { elicitation: { message: 'Go on?', requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] } } } };
/** The bench's answer to ask_0's form. */
export const ASK_ANSWER = Object.freeze({ go: { action: 'accept', content: { go: true } } });
const PROGRESS_ASK = `const { executionId, toolName } = msg.payload;
if (msg.topic === 'mcp-resource-read') return { topic: 'mcp-resource-response', payload: { executionId, contents: 'hi' } };
if (msg.topic === 'mcp-prompt-get') return { topic: 'mcp-prompt-response', payload: { executionId, messages: [{ role: 'user', content: 'hi ' + msg.payload.arguments.who }] } };
if (msg.topic !== 'mcp-tool-execute') return null;
const text = msg.payload.arguments.text;
const respond = (result) => ({ topic: 'mcp-tool-response', payload: { executionId, result } });
if (toolName === 'progress_0') return [[{ topic: 'mcp-tool-progress', payload: { executionId, progress: 1, total: 1 } }, respond(text)]];
if (!msg.payload.inputRound) return { topic: 'mcp-tool-input', payload: { executionId, requests: ${JSON.stringify(ASK_REQUESTS)} } };
const reply = msg.payload.inputResponses && msg.payload.inputResponses.go;
return respond(reply && reply.action === 'accept' && reply.content.go === true ? text : 'declined');`;
export const PROGRESS_TOOL = 'progress_0';
export const ASK_TOOL = 'ask_0';
/** Local's progress and asking endpoint (phase `relay`): the reference of the relayed ones. */
export const PROGRESS_PATH = '/p1';

/** progress_0 and ask_0 (asks: elicitation) on `path`, answered by one function node (`<prefix>-flow`). */
function progressAskNodes(prefix, path, server) {
  return [
    answer(`${prefix}-flow`, PROGRESS_ASK, server),
    tool(`${prefix}-progress`, { name: PROGRESS_TOOL, endpoint: path, input: ECHO_INPUT }),
    { ...tool(`${prefix}-ask`, { name: ASK_TOOL, endpoint: path, input: ECHO_INPUT }), asks: 'elicitation' },
  ];
}

/**
 * Local access: /t1, /t100, /t500 (echo), /slow (held calls, `pending` slots), /ctl (heap, held,
 * release), with `content` the resource and prompt endpoints /c1 and /c500, with `onePort` /n1
 * on Node-RED's own port, and with `progress` /p1 (a tool that reports progress, a tool that asks).
 */
export function localFlows(port, { pending, content = false, onePort = false, progress = false }) {
  const nodes = [tab(), runtime('rt', port), ...(content ? contentEndpoints() : []), ...(onePort ? onePortEndpoint() : [])];
  if (progress) {
    nodes.push(flowServer('fs-p1', { runtime: 'rt', path: PROGRESS_PATH, wires: ['p1-flow'], maxConcurrent: 64, serverName: 'bench-progress' }));
    nodes.push(...progressAskNodes('p1', PROGRESS_PATH, 'fs-p1'));
  }
  for (const count of LOCAL_TOOL_COUNTS) {
    const path = `/t${count}`;
    nodes.push(flowServer(`fs-${count}`, { runtime: 'rt', path, wires: [`echo-${count}`], maxConcurrent: 64, serverName: `bench-${count}` }));
    nodes.push(answer(`echo-${count}`, ECHO, `fs-${count}`));
    nodes.push(...echoTools(`t${count}`, count, path));
  }
  nodes.push(flowServer('fs-slow', { runtime: 'rt', path: '/slow', wires: ['hold'], maxConcurrent: Math.max(pending, 1) }));
  nodes.push(answer('hold', HOLD, 'fs-slow'));
  nodes.push(tool('slow-tool', { name: 'hold', endpoint: '/slow', input: ECHO_INPUT, timeout: 600 }));
  // The same held calls, run as tasks: what a pending task costs next to a pending call. Every task of
  // the run comes from one caller, so the running and the stored caps (1000 per caller by default) are
  // raised to the count held.
  const taskSlots = String(Math.max(pending, 1));
  const taskCaps = { maxTasks: taskSlots, maxTasksPerCaller: taskSlots, maxStoredTasks: taskSlots, maxStoredTasksPerCaller: taskSlots };
  nodes.push({ ...flowServer('fs-tslow', { runtime: 'rt', path: '/tslow', wires: ['hold-tasks'], maxConcurrent: Math.max(pending, 1) }), ...taskCaps });
  nodes.push(answer('hold-tasks', HOLD_TASKS, 'fs-tslow'));
  nodes.push(tool('slow-task-tool', { name: 'hold_task', endpoint: '/tslow', input: ECHO_INPUT, timeout: 600, taskSupport: 'optional' }));
  nodes.push(...controlEndpoint());
  return nodes;
}

/**
 * The storage node of each OAuth endpoint, by its path (and slug): /mem (sign-in state in Memory
 * storage), /redis (one Redis at MCP_BENCH_REDIS_URL) and, for the `ha` phase, /sentinel (the Sentinel
 * group at MCP_BENCH_SENTINELS) and /cluster (the Redis Cluster at MCP_BENCH_CLUSTER_NODES).
 */
const OAUTH_STORAGES = {
  mem: (id) => storage(id, 'memory'),
  redis: (id) => storage(id, 'redis', 'MCP_BENCH_REDIS_URL'),
  // OAuth + Redis with access per tool (GROUP_SETS below).
  groups: (id) => storage(id, 'redis', 'MCP_BENCH_REDIS_URL'),
  sentinel: (id) => sentinelStorage(id, 'MCP_BENCH_SENTINELS', SENTINEL_GROUP),
  cluster: (id) => clusterStorage(id, 'MCP_BENCH_CLUSTER_NODES'),
};

/**
 * OAuth access, 500 tools each, one endpoint per key of `ports` (a key of OAUTH_STORAGES: its storage).
 * Each has its own mcp-auth and so its own runtime port: the discovery documents of an origin name one
 * authorization server.
 */
export function oauthFlows(ports, issuer) {
  const nodes = [tab()];
  for (const mode of Object.keys(ports)) {
    const path = `/${mode}`;
    nodes.push(OAUTH_STORAGES[mode](`store-${mode}`));
    nodes.push(runtimeWithBaseUrl(`rt-${mode}`, ports[mode]));
    nodes.push(
      oidcAuth(`auth-${mode}`, {
        storage: `store-${mode}`,
        issuer,
        clientId: BRIDGE_CLIENT.id,
        secretEnv: 'MCP_BENCH_OIDC_SECRET',
        slug: mode,
        pinned: [claudeLikeDocument(CLIENT_ID)],
        ttl: 900,
      }),
    );
    nodes.push({ ...oauthServer(`fs-${mode}`, { runtime: `rt-${mode}`, auth: `auth-${mode}`, path, groups: 'mcp-users', wires: [`echo-${mode}`], serverName: `bench-${mode}` }), maxConcurrent: '64' });
    nodes.push(answer(`echo-${mode}`, ECHO, `fs-${mode}`));
    const tools = echoTools(mode, OAUTH_TOOL_COUNT, path);
    nodes.push(...(mode === 'groups' ? tools.map((node, i) => ({ ...node, ...(TOOL_GROUPS[i % 3] ? { allowedGroups: TOOL_GROUPS[i % 3] } : {}) })) : tools));
  }
  return nodes;
}

/**
 * Endpoint /groups: of its 500 tools a third is for every member, a third for `maintenance`, a third
 * for `ops`. Three callers of three group sets see 167, 334 and all 500 of them: three views, each
 * built once per deploy.
 */
const TOOL_GROUPS = [undefined, 'maintenance', 'ops'];
export const GROUP_SET_CALLERS = [
  { username: 'alice', groups: ['mcp-users', 'admins'], sees: 167 },
  { username: 'carol', groups: ['mcp-users', 'maintenance'], sees: 334 },
  { username: 'dave', groups: ['mcp-users', 'maintenance', 'ops'], sees: 500 },
];

export function oauthCallbacks(ports) {
  return Object.keys(ports).map((slug) => `http://127.0.0.1:${ports[slug]}/oauth/${slug}/callback`);
}

// Baseline H: what a user wires without any palette — core `http in` (POST) → `function` → `http
// response`, answering JSON-RPC by hand for one echo tool. `initialize`, `ping` and `tools/list` are
// answered too (minimally, as a hand-written server would), so it is a fair stand-in for an MCP server
// and for hand-written palettes that skip the SDK and every check. Served by Node-RED's own HTTP server
// (the editor port), in the same Node-RED as the palette.
// The http response node sends an object payload as JSON (content-type application/json).
const HAND_WIRED = `const request = msg.payload;
if (!request || typeof request !== 'object' || Array.isArray(request) || request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
  msg.statusCode = 400;
  msg.payload = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } };
  return msg;
}
if (request.id === undefined) {
  msg.statusCode = 202;
  msg.payload = '';
  return msg;
}
const params = request.params || {};
const reply = (body) => {
  msg.statusCode = 200;
  msg.payload = Object.assign({ jsonrpc: '2.0', id: request.id }, body);
  return msg;
};
switch (request.method) {
  case 'initialize':
    return reply({ result: { protocolVersion: params.protocolVersion || '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hand-wired', version: '1.0.0' } } });
  case 'ping':
    return reply({ result: {} });
  case 'tools/list':
    return reply({ result: { tools: [{ name: 'echo_0', description: 'echo tool 0', inputSchema: ${JSON.stringify(ECHO_INPUT)} }] } });
  case 'tools/call': {
    const text = params.arguments && params.arguments.text;
    if (params.name !== 'echo_0') return reply({ error: { code: -32602, message: 'Unknown tool' } });
    if (typeof text !== 'string') return reply({ error: { code: -32602, message: 'text must be a string' } });
    return reply({ result: { content: [{ type: 'text', text }] } });
  }
  default:
    return reply({ error: { code: -32601, message: 'Method not found' } });
}`;

export const HAND_WIRED_PATH = '/mcp';

/** Baseline H's flow: POST /mcp on Node-RED's own port, answered by one function node. */
export function handWiredFlows() {
  const z = 'bench-h';
  return [
    tab(z),
    { id: 'h-in', type: 'http in', z, name: '', url: HAND_WIRED_PATH, method: 'post', upload: false, swaggerDoc: '', x: 100, y: 40, wires: [['h-fn']] },
    { id: 'h-fn', type: 'function', z, name: 'answer JSON-RPC', func: HAND_WIRED, outputs: 1, timeout: 0, noerr: 0, initialize: '', finalize: '', libs: [], x: 300, y: 40, wires: [['h-out']] },
    { id: 'h-out', type: 'http response', z, name: '', statusCode: '', headers: {}, x: 500, y: 40, wires: [] },
  ];
}

// --- edge relaying (phase `relay`) ----------------------------------------------------------------
// A hub Node-RED and an edge Node-RED in two processes, sharing one Redis (MCP_BENCH_REDIS_URL). The
// edge offers the same one-node echo flow as the Local endpoints (site `plant-a`), the flow that
// holds calls (site `plant-b`), and content, progress and questions (site `plant-c`); the hub serves
// them as `plant-a.echo_0`, `plant-b.hold`, and `edge://plant-c/bench://r-0`,
// `edge://plant-c/bench://t/{id}`, `plant-c.p_0`, `plant-c.progress_0`, `plant-c.ask_0`.
export const RELAY_SITE = 'plant-a';
export const RELAY_HOLD_SITE = 'plant-b';
export const RELAY_CONTENT_SITE = 'plant-c';
export const RELAY_PATH = '/r1';
export const RELAY_SLOW_PATH = '/rslow';
/** The hub endpoint serving site plant-c: its own endpoint, so /r1 (relay-1) stays what it was. */
export const RELAY_CONTENT_PATH = '/rc';
export const RELAY_TOOL = `${RELAY_SITE}.echo_0`;
export const RELAY_HOLD_TOOL = `${RELAY_HOLD_SITE}.hold`;
/** Hub names of plant-c's items (the hub's default Naming and URI naming). */
export const RELAY_READ_URI = `edge://${RELAY_CONTENT_SITE}/bench://r-0`;
export const RELAY_READ_TEMPLATED_URI = `edge://${RELAY_CONTENT_SITE}/bench://t/hi`;
export const RELAY_PROMPT = `${RELAY_CONTENT_SITE}.p_0`;
export const RELAY_PROGRESS_TOOL = `${RELAY_CONTENT_SITE}.${PROGRESS_TOOL}`;
export const RELAY_ASK_TOOL = `${RELAY_CONTENT_SITE}.${ASK_TOOL}`;

const relayStorage = () => storage('store-redis', 'redis', 'MCP_BENCH_REDIS_URL');

/**
 * The hub: /r1 serves site plant-a (1 edge tool), /rslow site plant-b (`pending` calls at once), /rc
 * site plant-c (a resource, a template, a prompt, progress_0 and ask_0); no local flow.
 */
export function relayHubFlows(port, { pending }) {
  const slots = String(Math.max(pending, 1));
  return [
    tab(),
    runtime('rt', port),
    relayStorage(),
    { ...flowServer('fs-r1', { runtime: 'rt', path: RELAY_PATH, maxConcurrent: 64, serverName: 'bench-hub' }), storage: 'store-redis', hubSites: RELAY_SITE, maxPendingPerSite: '64' },
    { ...flowServer('fs-rslow', { runtime: 'rt', path: RELAY_SLOW_PATH, maxConcurrent: Math.max(pending, 1), serverName: 'bench-hub-slow' }), storage: 'store-redis', hubSites: RELAY_HOLD_SITE, maxPendingPerSite: slots },
    { ...flowServer('fs-rc', { runtime: 'rt', path: RELAY_CONTENT_PATH, maxConcurrent: 64, serverName: 'bench-hub-content' }), storage: 'store-redis', hubSites: RELAY_CONTENT_SITE, maxPendingPerSite: '64' },
    ...controlEndpoint(),
  ];
}

/** The edge: /e1 is site plant-a (echo_0, the Local endpoints' echo flow), /eslow site plant-b (hold), /ec site plant-c. */
export function relayEdgeFlows(port, { pending }) {
  return [
    tab(),
    runtime('rt', port),
    relayStorage(),
    { ...flowServer('fs-e1', { runtime: 'rt', path: '/e1', wires: ['echo-e1'], maxConcurrent: 64, serverName: 'bench-edge' }), storage: 'store-redis', edgeSite: RELAY_SITE },
    answer('echo-e1', ECHO, 'fs-e1'),
    ...echoTools('e1', 1, '/e1'),
    { ...flowServer('fs-eslow', { runtime: 'rt', path: '/eslow', wires: ['hold'], maxConcurrent: Math.max(pending, 1), serverName: 'bench-edge-slow' }), storage: 'store-redis', edgeSite: RELAY_HOLD_SITE },
    answer('hold', HOLD, 'fs-eslow'),
    tool('slow-tool', { name: 'hold', endpoint: '/eslow', input: ECHO_INPUT, timeout: 600 }),
    // Site plant-c: the resource, template and prompt /c1 reads (bench://r-0, bench://t/{id}, p_0) and
    // Local /p1's progress_0 and ask_0, answered by /p1's one function node (PROGRESS_ASK).
    { ...flowServer('fs-ec', { runtime: 'rt', path: '/ec', wires: ['ec-flow'], maxConcurrent: 64, serverName: 'bench-edge-content' }), storage: 'store-redis', edgeSite: RELAY_CONTENT_SITE },
    ...progressAskNodes('ec', '/ec', 'fs-ec'),
    resource('ec-r-0', { uri: 'bench://r-0', endpoint: '/ec', timeout: 60 }),
    resource('ec-t-0', { uri: READ_TEMPLATE_URI, endpoint: '/ec', timeout: 60 }),
    prompt('ec-p-0', { name: 'p_0', endpoint: '/ec', source: 'flow', arguments: [{ name: 'who', required: true }], timeout: 60 }),
    ...controlEndpoint(),
  ];
}
