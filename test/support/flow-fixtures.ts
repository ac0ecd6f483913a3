// A deployed flow set for get_flow tests, and a loopback HTTP server that answers Node-RED's
// admin routes GET /flow/:id and GET /flow/global the way @node-red/runtime builds them
// (lib/flows/index.js getFlow over lib/flows/util.js parseConfig).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { createGetFlowTool, type GetFlowOptions } from '../../lib/admin/get-flow-tool.js';
import type { InProcessResult, ToolDefinition } from '../../lib/mcp/tool-definition.js';

export type ConfigEntry = Record<string, unknown> & { id: string; type: string };

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

export const TAB_MAIN = 'tab-main';
export const TAB_OTHER = 'tab-other';
export const TAB_OFF = 'tab-off';
export const SUBFLOW = 'sf-enrich';
export const GROUP_OUTER = 'grp-outer';
export const GROUP_INNER = 'grp-inner';
export const LONG_CODE_CHARS = 12_500;

/**
 * Values planted where only redaction keeps them out of answers. No get_flow response may contain
 * any of them, whatever the mode and arguments.
 */
export const PLANTED_SECRETS = Object.freeze({
  tabEnv: 'planted-tab-env-7f3a',
  groupEnv: 'planted-group-env-91cc',
  subflowEnv: 'planted-subflow-env-02de',
  instanceEnv: 'planted-instance-env-5b1e',
  credentialPassword: 'planted-credential-password-4410',
  apiKey: 'planted-api-key-8d2f',
  clientSecret: 'planted-client-secret-66a0',
  bearer: 'planted-bearer-token-c3b9',
  urlPassword: 'planted-url-password-e71d',
  deepPassword: 'planted-deep-password-0aa4',
  mongoPassword: 'planted-mongo-password-b58e',
  schemaDefault: 'planted-schema-default-3f19',
  codeUrlPassword: 'planted-code-url-password-d7c2',
  nodeEnv: 'planted-node-env-prop-1e88',
  privateKey: 'planted-private-key-9e07',
  cookie: 'planted-cookie-47b1',
  configEnvValue: 'planted-config-env-aa51',
  switchToken: 'planted-switch-token-2c6d',
  nameUrlPassword: 'planted-name-url-password-5c30',
});

const S = PLANTED_SECRETS;

function longFunctionCode(): string {
  const header = `// talks to https://carol:${S.codeUrlPassword}@db.example.com/stats\nconst started = Date.now();\n`;
  const lines: string[] = [header];
  let index = 0;
  while (lines.join('').length < LONG_CODE_CHARS) {
    lines.push(`msg.payload.step${index} = (msg.payload.step${index} || 0) + ${index};\n`);
    index += 1;
  }
  return `${lines.join('').slice(0, LONG_CODE_CHARS - 12)}return msg;\n`;
}

const TOOL_INPUT_SCHEMA = JSON.stringify({
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    password: { type: 'string', default: S.schemaDefault },
    nested: { type: 'object', properties: { apiKey: { type: 'string', default: S.apiKey } } },
  },
  required: ['city'],
});

/** Three tabs (one disabled), nested groups, link nodes across tabs, a subflow, scoped and global config nodes. */
export function fixtureFlows(): ConfigEntry[] {
  return [
    { id: TAB_MAIN, type: 'tab', label: 'Main tools', disabled: false, info: 'main tab', env: [{ name: 'DB_HOST', type: 'str', value: S.tabEnv }] },
    { id: TAB_OTHER, type: 'tab', label: 'Other', disabled: false, info: '' },
    { id: TAB_OFF, type: 'tab', label: 'Switched off', disabled: true, info: '' },
    {
      id: SUBFLOW,
      type: 'subflow',
      name: 'Enrich',
      info: 'adds fields',
      category: 'function',
      in: [{ x: 60, y: 80, wires: [{ id: 'sf-change' }] }],
      out: [{ x: 420, y: 80, wires: [{ id: 'sf-func', port: 0 }] }],
      env: [{ name: 'SF_TOKEN', type: 'str', value: S.subflowEnv }],
      color: '#DDAA99',
    },

    // Global config nodes.
    { id: 'cfg-runtime', type: 'mcp-runtime', name: 'MCP runtime', port: '1881', host: '127.0.0.1', baseUrl: '' },
    {
      id: 'cfg-api',
      type: 'api-config',
      name: `API https://svc:${S.nameUrlPassword}@api.example.com`,
      url: `https://alice:${S.urlPassword}@api.example.com/v1`,
      apiKey: S.apiKey,
      clientSecret: S.clientSecret,
      retries: 3,
      verbose: false,
      headers: { Authorization: `Bearer ${S.bearer}`, Accept: 'application/json', Cookie: S.cookie },
      settings: { deep: { level2: { password: S.deepPassword, keep: 'visible-setting' } }, tags: ['a', 'b'] },
      tls: { private_key: S.privateKey, ca: 'public-ca-name' },
      env: [{ name: 'CFG_ENV', type: 'str', value: S.configEnvValue }],
      credentials: { user: 'svc', password: S.credentialPassword },
    },
    { id: 'cfg-mongo', type: 'mongodb4-client', name: 'Mongo', uri: `mongodb://app:${S.mongoPassword}@mongo.example.com:27017/app`, dbName: 'app' },
    ...manyGlobalConfigs(45),

    // Main tab: config node scoped to the tab.
    { id: 'cfg-tab-limits', type: 'limits-config', z: TAB_MAIN, name: 'Tab limits', max: 10, window: '1m' },

    // Main tab: groups (inner nested in outer).
    { id: GROUP_OUTER, type: 'group', z: TAB_MAIN, name: 'Weather tool', style: {}, nodes: ['n-server', 'n-tool', GROUP_INNER], env: [{ name: 'G', type: 'str', value: S.groupEnv }], x: 14, y: 19, w: 600, h: 300 },
    { id: GROUP_INNER, type: 'group', z: TAB_MAIN, g: GROUP_OUTER, name: 'Handlers', style: {}, nodes: ['n-switch', 'n-func'], x: 40, y: 100, w: 300, h: 120 },

    // Main chain: server -> switch -> (function | link out) ; function -> http request -> change -> link call
    { id: 'n-server', type: 'mcp-flow-server', z: TAB_MAIN, g: GROUP_OUTER, name: 'Tools endpoint', serverName: 'tools', path: '/tools', access: 'oauth', groups: 'mcp-users, admins', runtime: 'cfg-runtime', auth: '', maxConcurrent: 32, x: 100, y: 60, wires: [['n-switch']] },
    {
      id: 'n-tool',
      type: 'mcp-tool-registry',
      z: TAB_MAIN,
      g: GROUP_OUTER,
      name: '',
      toolName: 'weather',
      title: 'Weather',
      description: 'Current weather for a city',
      inputSchema: TOOL_INPUT_SCHEMA,
      outputSchema: '{ this is not json',
      endpoint: '/tools',
      readOnlyHint: true,
      openWorldHint: false,
      x: 100,
      y: 120,
      wires: [],
    },
    {
      id: 'n-switch',
      type: 'switch',
      z: TAB_MAIN,
      g: GROUP_INNER,
      name: 'by tool',
      property: 'payload.toolName',
      propertyType: 'msg',
      rules: [
        { t: 'eq', v: 'weather', vt: 'str' },
        { t: 'else' },
      ],
      checkall: 'true',
      repair: false,
      outputs: 2,
      x: 260,
      y: 60,
      wires: [['n-func'], ['n-linkout']],
    },
    { id: 'n-func', type: 'function', z: TAB_MAIN, g: GROUP_INNER, name: 'Build query', func: longFunctionCode(), initialize: '// start\ncontext.set("n", 0);', finalize: '', outputs: 1, libs: [], x: 420, y: 60, wires: [['n-http']] },
    { id: 'n-http', type: 'http request', z: TAB_MAIN, name: 'Weather API', method: 'GET', url: `https://bob:${S.urlPassword}@weather.example.com/now`, tls: '', x: 580, y: 60, wires: [['n-change']] },
    { id: 'n-change', type: 'change', z: TAB_MAIN, name: 'Shape answer', rules: [{ t: 'set', p: 'topic', pt: 'msg', to: 'mcp-tool-response', tot: 'str' }], x: 740, y: 60, wires: [['n-linkcall']] },
    { id: 'n-linkcall', type: 'link call', z: TAB_MAIN, name: 'Log it', links: ['o-linkin'], linkType: 'static', timeout: '30', x: 900, y: 60, wires: [['n-server']] },
    { id: 'n-linkout', type: 'link out', z: TAB_MAIN, name: 'To other tab', mode: 'link', links: ['o-linkin'], x: 420, y: 140 },
    { id: 'n-limits-user', type: 'rate-limit', z: TAB_MAIN, name: 'Limiter', limits: 'cfg-tab-limits', api: 'cfg-api', x: 420, y: 240, wires: [] },

    // Main tab: a second, independent chain and some unwired nodes.
    { id: 'n-inject', type: 'inject', z: TAB_MAIN, name: 'Every minute', props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }], repeat: '60', crontab: '', once: true, onceDelay: 0.1, topic: 'tick', payload: '', payloadType: 'date', x: 100, y: 300, wires: [['n-mongo']] },
    { id: 'n-mongo', type: 'mongodb4', z: TAB_MAIN, name: 'Store', clientNode: 'cfg-mongo', mode: 'collection', collection: 'ticks', operation: 'insertOne', output: 'toArray', maxTimeMS: '5000', handleDocId: false, x: 260, y: 300, wires: [['n-debug']] },
    { id: 'n-debug', type: 'debug', z: TAB_MAIN, name: 'Show', active: true, x: 420, y: 300, wires: [] },
    { id: 'n-catch', type: 'catch', z: TAB_MAIN, name: 'Errors', scope: ['n-func', 'n-http'], uncaught: false, x: 100, y: 380, wires: [['n-debug']] },
    { id: 'n-comment', type: 'comment', z: TAB_MAIN, name: 'Read me', info: 'notes', x: 100, y: 440, wires: [] },
    {
      id: 'n-switch-secret',
      type: 'switch',
      z: TAB_MAIN,
      name: 'secret rules',
      property: 'req.headers.authorization',
      propertyType: 'msg',
      rules: [{ t: 'eq', v: 'x', vt: 'str', token: S.switchToken }],
      checkall: 'true',
      repair: false,
      outputs: 1,
      x: 100,
      y: 500,
      wires: [[]],
    },
    { id: 'n-instance', type: `subflow:${SUBFLOW}`, z: TAB_MAIN, name: 'Enrich main', env: [{ name: 'SF_TOKEN', type: 'str', value: S.instanceEnv }], x: 260, y: 440, wires: [[]] },

    // Other tab: the link target, a subflow instance, a node with an env property.
    { id: 'o-linkin', type: 'link in', z: TAB_OTHER, name: 'From main', links: ['n-linkout', 'n-linkcall'], x: 100, y: 60, wires: [['o-instance']] },
    { id: 'o-instance', type: `subflow:${SUBFLOW}`, z: TAB_OTHER, name: 'Enrich other', env: [{ name: 'SF_TOKEN', type: 'str', value: S.instanceEnv }], x: 260, y: 60, wires: [['o-linkret']] },
    { id: 'o-linkret', type: 'link out', z: TAB_OTHER, name: 'Return', mode: 'return', links: [], x: 420, y: 60 },
    { id: 'o-exec', type: 'exec', z: TAB_OTHER, name: 'Runs', command: 'ls', env: S.nodeEnv, x: 100, y: 140, wires: [[], [], []] },

    // Disabled tab.
    { id: 'f-inject', type: 'inject', z: TAB_OFF, name: 'Off', props: [{ p: 'payload' }], repeat: '', once: false, x: 100, y: 60, wires: [['f-debug']] },
    { id: 'f-debug', type: 'debug', z: TAB_OFF, name: '', x: 260, y: 60, wires: [] },

    // Inside the subflow: its nodes and a config node scoped to it.
    { id: 'sf-change', type: 'change', z: SUBFLOW, name: 'Add fields', rules: [], x: 200, y: 80, wires: [['sf-func']] },
    { id: 'sf-func', type: 'function', z: SUBFLOW, name: 'Finish', func: 'return msg;', outputs: 1, x: 320, y: 80, wires: [[]] },
    { id: 'sf-cfg', type: 'limits-config', z: SUBFLOW, name: 'Subflow limits', max: 5, password: S.deepPassword },
    { id: 'sf-user', type: 'rate-limit', z: SUBFLOW, name: 'Inner limiter', limits: 'sf-cfg', api: 'cfg-api', x: 320, y: 140, wires: [] },
  ];
}

/** Enough global config nodes to need a second page. */
function manyGlobalConfigs(count: number): ConfigEntry[] {
  return Array.from({ length: count }, (_, index) => ({ id: `cfg-extra-${String(index).padStart(2, '0')}`, type: 'extra-config', name: `Extra ${index}`, value: index }));
}

/**
 * One tab of `nodes` generated nodes: node i wires to the next `fanOut` nodes, so the whole tab
 * is one chain. `groupEvery` adds a group per that many nodes (0: none).
 */
export function generateLargeFlow(options: { tabId?: string; nodes?: number; fanOut?: number } = {}): ConfigEntry[] {
  const tabId = options.tabId ?? 'tab-large';
  const count = options.nodes ?? 20_000;
  const fanOut = options.fanOut ?? 1;
  const entries: ConfigEntry[] = [{ id: tabId, type: 'tab', label: `Large (${count})`, disabled: false, info: '' }];
  for (let index = 0; index < count; index += 1) {
    const targets: string[] = [];
    for (let step = 1; step <= fanOut && index + step < count; step += 1) targets.push(`big-${index + step}`);
    entries.push({ id: `big-${index}`, type: index === 0 ? 'inject' : 'change', z: tabId, name: `step ${index}`, x: 100 + (index % 50) * 20, y: 40 + Math.floor(index / 50) * 20, wires: [targets] });
  }
  return entries;
}

// ---------------------------------------------------------------------------------------------
// What Node-RED's runtime answers for GET /flow/:id and GET /flow/global.

function clone<T>(value: T): T {
  return structuredClone(value);
}

function isFlowNode(entry: ConfigEntry): boolean {
  return Object.hasOwn(entry, 'x') && Object.hasOwn(entry, 'y');
}

function isContainer(entry: ConfigEntry): boolean {
  return entry.type === 'tab' || entry.type === 'subflow' || entry.type === 'group';
}

export interface DocumentOptions {
  /** Keep `credentials` containers (Node-RED strips them; a defensive test wants them through). */
  readonly leakCredentials?: boolean;
}

function strip(entry: ConfigEntry, options: DocumentOptions): ConfigEntry {
  const copy = clone(entry);
  if (!options.leakCredentials) delete copy.credentials;
  return copy;
}

/** Node-RED's parseConfig sets `wires` on link out nodes from their links, then getFlow drops them. */
function asRuntimeNode(entry: ConfigEntry, options: DocumentOptions): ConfigEntry {
  const copy = strip(entry, options);
  const subflow = /^subflow:(.+)$/.exec(copy.type);
  if (subflow) copy.subflow = subflow[1];
  if (copy.type === 'link out') delete copy.wires;
  return copy;
}

export function tabDocument(config: readonly ConfigEntry[], id: string, options: DocumentOptions = {}): Record<string, unknown> | undefined {
  const tab = config.find((entry) => entry.type === 'tab' && entry.id === id);
  if (!tab) return undefined;
  const result: Record<string, unknown> = { id };
  if (tab.label) result.label = tab.label;
  if (Object.hasOwn(tab, 'disabled')) result.disabled = tab.disabled;
  if (Object.hasOwn(tab, 'info')) result.info = tab.info;
  if (Object.hasOwn(tab, 'env')) result.env = clone(tab.env);
  const groups = config.filter((entry) => entry.z === id && entry.type === 'group').map((entry) => strip(entry, options));
  const nodes = config.filter((entry) => entry.z === id && !isContainer(entry) && isFlowNode(entry)).map((entry) => asRuntimeNode(entry, options));
  result.nodes = [...groups, ...nodes];
  const configs = config.filter((entry) => entry.z === id && !isContainer(entry) && !isFlowNode(entry)).map((entry) => strip(entry, options));
  if (configs.length > 0) result.configs = configs;
  return result;
}

export function globalDocument(config: readonly ConfigEntry[], options: DocumentOptions = {}): Record<string, unknown> {
  const containers = new Set(config.filter((entry) => entry.type === 'tab' || entry.type === 'subflow').map((entry) => entry.id));
  const globals = config.filter((entry) => !isContainer(entry) && !isFlowNode(entry) && !containers.has(String(entry.z ?? '')));
  const globalIds = new Set(globals.map((entry) => entry.id));
  const users = new Map<string, string[]>(globals.map((entry) => [entry.id, []]));
  for (const entry of config) {
    if (isContainer(entry)) continue;
    for (const [key, value] of Object.entries(entry)) {
      if (key === 'id' || key === 'wires' || key === 'type' || key === '_users') continue;
      if (typeof value === 'string' && globalIds.has(value)) users.get(value)!.push(entry.id);
    }
  }
  const result: Record<string, unknown> = { id: 'global' };
  if (globals.length > 0) result.configs = globals.map((entry) => ({ ...strip(entry, options), _users: users.get(entry.id) }));
  const subflows = config
    .filter((entry) => entry.type === 'subflow')
    .map((subflow) => {
      const copy: Record<string, unknown> = strip(subflow, options);
      const inner = config.filter((entry) => entry.z === subflow.id);
      copy.nodes = [
        ...inner.filter((entry) => !isContainer(entry) && isFlowNode(entry)).map((entry) => asRuntimeNode(entry, options)),
        ...inner.filter((entry) => entry.type === 'group').map((entry) => strip(entry, options)),
      ];
      const configs = inner.filter((entry) => !isContainer(entry) && !isFlowNode(entry)).map((entry) => strip(entry, options));
      copy.configs = configs;
      return copy;
    });
  if (subflows.length > 0) result.subflows = subflows;
  return result;
}

/** RED.nodes.eachNode over a deployed configuration (Node-RED hands out its own clones). */
export function eachNodeOf(config: () => readonly ConfigEntry[]): (visit: (entry: Record<string, unknown>) => void) => void {
  return (visit) => {
    for (const entry of config()) visit(entry);
  };
}

// ---------------------------------------------------------------------------------------------
// The admin API server.

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly authorized: boolean;
}

/** How the server answers; tests switch it between calls. */
export type AdminBehaviour =
  | { readonly kind: 'normal' }
  /** Accepts the request and never answers. */
  | { readonly kind: 'hang' }
  /** Streams a JSON document of `bytes` bytes without Content-Length. */
  | { readonly kind: 'oversize'; readonly bytes: number }
  /** Declares a Content-Length over the limit and sends a few bytes. */
  | { readonly kind: 'declared-oversize'; readonly bytes: number }
  | { readonly kind: 'status'; readonly status: number };

export interface FakeAdminApi {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  config: readonly ConfigEntry[];
  behaviour: AdminBehaviour;
  options: DocumentOptions;
  /** Bytes the server wrote for oversize answers before the client went away. */
  readonly streamed: () => number;
  /** Resolves when the next request reaches the server (ask before starting the request). */
  nextArrival(): Promise<void>;
  /** Resolves when the next oversize answer's connection closes (sent in full or cut by the client). */
  nextStreamClosed(): Promise<void>;
  close(): Promise<void>;
}

/** A loopback imitation of Node-RED's admin API with adminAuth on: Bearer token or 401. */
export async function startFakeAdminApi(config: readonly ConfigEntry[], token: string = ADMIN_TOKEN): Promise<FakeAdminApi> {
  let streamed = 0;
  // Waiters for the next request and the next closed oversize stream: tests wait on these events.
  let arrivalWaiters: Array<() => void> = [];
  let streamWaiters: Array<() => void> = [];
  const wakeAll = (waiters: Array<() => void>) => {
    for (const wake of waiters) wake();
  };
  // Tests change these between calls, so the handler reads them on every request.
  const state = {
    requests: [] as RecordedRequest[],
    config,
    behaviour: { kind: 'normal' } as AdminBehaviour,
    options: {} as DocumentOptions,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const authorized = req.headers.authorization === `Bearer ${token}`;
    state.requests.push({ method: req.method ?? '', url: req.url ?? '', authorized });
    const arrived = arrivalWaiters;
    arrivalWaiters = [];
    wakeAll(arrived);
    if (!authorized) return json(res, 401, { code: 'unauthorized', message: 'Unauthorized' });
    const behaviour = state.behaviour;
    if (behaviour.kind === 'hang') return;
    if (behaviour.kind === 'status') return json(res, behaviour.status, { code: 'error', message: 'failure' });
    if (behaviour.kind === 'oversize') {
      res.once('close', () => {
        const closed = streamWaiters;
        streamWaiters = [];
        wakeAll(closed);
      });
      return streamOversize(res, behaviour.bytes, (bytes) => (streamed += bytes));
    }
    if (behaviour.kind === 'declared-oversize') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(behaviour.bytes) });
      res.write('{"id":"');
      return;
    }
    const match = /^\/flow\/([^/?]+)$/.exec(req.url ?? '');
    if (req.method !== 'GET' || !match) return json(res, 404, { code: 'not_found', message: 'Not Found' });
    const id = decodeURIComponent(match[1]!);
    const document = id === 'global' ? globalDocument(state.config, state.options) : tabDocument(state.config, id, state.options);
    if (!document) return json(res, 404, { code: 'not_found', message: 'Not Found' });
    return json(res, 200, document);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}`,
    streamed: () => streamed,
    nextArrival: () => new Promise<void>((resolve) => void arrivalWaiters.push(resolve)),
    nextStreamClosed: () => new Promise<void>((resolve) => void streamWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function streamOversize(res: ServerResponse, bytes: number, count: (bytes: number) => void): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  let sent = 0;
  res.write('{"id":"x","nodes":[],"pad":"');
  const pump = () => {
    while (sent < bytes) {
      if (res.destroyed) return;
      sent += chunk.length;
      count(chunk.length);
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end('"}');
  };
  pump();
}

// ---------------------------------------------------------------------------------------------
// A get_flow tool wired to the fake admin API, called the way the MCP endpoint calls it.

export interface GetFlowCall {
  readonly answer: InProcessResult;
  readonly result: CallToolResult;
  /** The structured content (undefined for error results). */
  readonly data: Record<string, unknown> & { meta: Record<string, unknown> };
  /** The result's single text item. */
  readonly text: string;
}

export interface GetFlowHarness {
  readonly api: FakeAdminApi;
  readonly tool: ToolDefinition;
  /** Bumps the deploy generation, as a deploy does. */
  deploy(config?: readonly ConfigEntry[]): void;
  call(args?: Record<string, unknown>, signal?: AbortSignal): Promise<GetFlowCall>;
  close(): Promise<void>;
}

export async function startGetFlowHarness(
  config: readonly ConfigEntry[] = fixtureFlows(),
  overrides: Partial<GetFlowOptions> = {},
): Promise<GetFlowHarness> {
  const api = await startFakeAdminApi(config);
  let generation = 1;
  const tool = createGetFlowTool({
    adminBaseUrl: api.baseUrl,
    token: ADMIN_TOKEN,
    eachNode: eachNodeOf(() => api.config),
    deployGeneration: () => generation,
    ...overrides,
  });
  return {
    api,
    tool,
    deploy(next) {
      if (next) api.config = next;
      generation += 1;
    },
    async call(args = {}, signal = new AbortController().signal) {
      const problems = tool.checkArguments(args);
      if (problems.length > 0) throw new Error(`arguments rejected by the input schema: ${JSON.stringify(problems)}`);
      const answer = await tool.runInProcess!(args, signal);
      const result = answer.result;
      if (result.content.length !== 1 || result.content[0]!.type !== 'text') throw new Error('expected exactly one text item');
      const text = (result.content[0] as { text: string }).text;
      if (!result.isError) {
        const structuredProblems = tool.checkStructuredContent!(result.structuredContent);
        if (structuredProblems.length > 0) throw new Error(`structuredContent breaks the output schema: ${JSON.stringify(structuredProblems)}`);
        if (text !== JSON.stringify(result.structuredContent)) throw new Error('text item differs from structuredContent');
      }
      return { answer, result, data: result.structuredContent as GetFlowCall['data'], text };
    },
    close: () => api.close(),
  };
}

/**
 * Registers the current suite's hooks around one harness on `config` (started before its first test,
 * closed after its last) and returns it: usable from the suite's tests on.
 */
export function getFlowHarnessForSuite(config?: readonly ConfigEntry[], overrides?: Partial<GetFlowOptions>): GetFlowHarness {
  let started: GetFlowHarness | undefined;
  before(async () => {
    started = await startGetFlowHarness(config, overrides);
  });
  after(() => started?.close());
  const current = (): GetFlowHarness => {
    if (!started) throw new Error('the get_flow harness is used before its suite started it');
    return started;
  };
  return {
    get api() {
      return current().api;
    },
    get tool() {
      return current().tool;
    },
    deploy: (next) => current().deploy(next),
    call: (args, signal) => current().call(args, signal),
    close: () => current().close(),
  };
}
