// Shared set-up for the node tests: node-red-node-test-helper on the Node-RED line under test, the
// compiled palette modules, the palette's real message catalogs, and small waits and HTTP calls.
import { request } from 'node:http';
import { after, afterEach, before } from 'node:test';
import { parseBody } from '../support/mcp-http.js';
import { nodeRedDir } from '../support/node-red-package.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** The Node-RED line under test: 4.1.x by default; NODE_RED_PACKAGE=node-red-5 runs the same tests on Node-RED 5. */
export const NODE_RED_PACKAGE = nodeRedDir;

/** dist/test/nodes/node-helper.js -> the repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** One recorded call of a spied Node method (sinon's SpyCall, reduced to what the tests read). */
export interface SpyCall {
  readonly thisValue: unknown;
  readonly args: unknown[];
}

/** A node as the tests see it: Node-RED's Node, with the helper's sinon spies on its prototype methods. */
export interface TestNode {
  readonly id: string;
  readonly type: string;
  receive(msg: Record<string, unknown>): void;
  on(event: 'input', listener: (msg: Record<string, any>) => void): void;
  [key: string]: any;
}

export type NodeModule = (RED: any) => void | Promise<void>;

interface NodeTestHelper {
  init(runtimePath: string, userSettings?: object): void;
  load(nodes: NodeModule[], flow: object[], credentials?: object): Promise<void>;
  unload(): Promise<void>;
  setFlows(flow: object[], type: 'full' | 'flows' | 'nodes', credentials?: object): Promise<void>;
  getNode(id: string): TestNode;
  startServer(): Promise<void>;
  stopServer(): Promise<void>;
  request(): any;
}

export const helper: NodeTestHelper = require('node-red-node-test-helper');
helper.init(require.resolve(NODE_RED_PACKAGE));

export const PALETTE_TYPES = ['mcp-runtime', 'mcp-flow-server', 'mcp-tool-registry'] as const;

interface NodeRedI18n {
  registerMessageCatalog(namespace: string, dir: string, file: string): Promise<void>;
  _(key: string, params?: Record<string, unknown>): string;
}

/**
 * For a describe block of node tests: starts the helper's Node-RED before the block, unloads the
 * flows after each test and stops it after the block. The returned list holds the modules of
 * `types` (by default the runtime, flow-server and tool-registry) once the block starts.
 */
export function usePalette(types: readonly string[] = PALETTE_TYPES): NodeModule[] {
  const nodes: NodeModule[] = [];
  before(async () => {
    await helper.startServer();
    nodes.push(...Object.values(await loadNodeTypes(types)));
  });
  after(() => helper.stopServer());
  afterEach(() => helper.unload());
  return nodes;
}

/** A port that was free a moment ago on loopback. Each test uses its own: listeners are shared per port. */
export { freePort } from '../support/ports.js';

// ---- flow definitions -------------------------------------------------------------------------
// Shaped like an editor export: flow nodes on a tab with x/y (Node-RED treats a node without x/y
// as a config node), config nodes global.

export const TAB_ID = 'tab1';

/** A deployable flow: the tab, then the given nodes. */
export function flowOf(...nodes: object[]): object[] {
  return [{ id: TAB_ID, type: 'tab', label: 'node tests' }, ...nodes];
}

let nextY = 0;
function onTab() {
  nextY += 40;
  return { z: TAB_ID, x: 200, y: nextY };
}

export function runtimeDef(id: string, port: number | string, extra: Record<string, unknown> = {}) {
  return { id, type: 'mcp-runtime', port: String(port), host: '127.0.0.1', baseUrl: '', ...extra };
}

export function flowServerDef(id: string, runtime: string, wires: string[][] = [[]], extra: Record<string, unknown> = {}) {
  return { id, type: 'mcp-flow-server', ...onTab(), serverName: 'test-server', path: '/mcp', runtime, access: 'local', maxConcurrent: 32, wires, ...extra };
}

export const OBJECT_SCHEMA = JSON.stringify({
  type: 'object',
  properties: { text: { type: 'string', description: 'what to echo' } },
  required: ['text'],
  additionalProperties: false,
});

export function toolDef(id: string, toolName: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    type: 'mcp-tool-registry',
    ...onTab(),
    toolName,
    title: '',
    description: `${toolName} for tests`,
    inputSchema: OBJECT_SCHEMA,
    outputSchema: '',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
    endpoint: '/mcp',
    timeout: '60',
    wires: [],
    ...extra,
  };
}

export function helperDef(id: string, wires: string[][] = []) {
  return { id, type: 'helper', ...onTab(), wires };
}

// ---- spies ------------------------------------------------------------------------------------

/** The arguments of every call `node` made to one of its spied methods (`status`, `error`, `warn`, ...). */
export function callsOf(node: TestNode, method: 'status' | 'error' | 'warn' | 'log' | 'send' | 'debug'): unknown[][] {
  // The helper spies on Node.prototype, so the spy records every node's calls: keep this node's.
  const spy = node[method] as { getCalls(): SpyCall[] };
  return spy.getCalls().filter((call) => call.thisValue === node).map((call) => call.args);
}

export interface NodeStatus {
  fill?: string;
  shape?: string;
  text?: string;
}

export function statuses(node: TestNode): NodeStatus[] {
  return callsOf(node, 'status').map((args) => args[0] as NodeStatus);
}

export function lastStatus(node: TestNode): NodeStatus | undefined {
  return statuses(node).at(-1);
}

/** The text of everything `node` logged at one level (Errors become their message). */
export function messagesOf(node: TestNode, method: 'error' | 'warn' | 'log'): string[] {
  return callsOf(node, method).map((args) => (args[0] instanceof Error ? args[0].message : String(args[0])));
}

export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits for a status call made after the first `after` calls, matching `fill`; returns it. */
export function waitForStatus(node: TestNode, fill: string, after = 0): Promise<NodeStatus> {
  return waitFor(
    () => statuses(node).slice(after).find((status) => status.fill === fill),
    `a ${fill} status on ${node.id} (statuses so far: ${JSON.stringify(statuses(node))})`,
  );
}


// ---- MCP over HTTP ----------------------------------------------------------------------------

export interface RpcResponse {
  readonly status: number;
  readonly body: any;
}

/**
 * One stateless 2025-11-25 JSON-RPC request, as a native MCP client sends it (no Origin). A fresh
 * connection each time, not fetch: fetch's pool keeps sockets per origin, and an endpoint that was
 * stopped (or a port the kernel hands out again to a later test) leaves it a dead socket to reuse.
 */
export function rpc(port: number, method: string, params: unknown = {}, id: number = 1, path = '/mcp', headers: Record<string, string> = {}): Promise<RpcResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parseBody(Buffer.concat(chunks).toString()) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

export function callTool(port: number, name: string, args: Record<string, unknown>, id = 1): Promise<RpcResponse> {
  return rpc(port, 'tools/call', { name, arguments: args }, id);
}

/** 'refused' when nothing listens on the port, else the HTTP status of a tools/list. */
export async function probeEndpoint(port: number, path = '/mcp'): Promise<'refused' | number> {
  try {
    return (await rpc(port, 'tools/list', {}, 99, path)).status;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') return 'refused';
    throw error;
  }
}

// ---- storage and sign-in config nodes (mcp-redis, mcp-auth) -------------------------------------

/**
 * Imports the compiled modules of the given node types. The helper hands every module `RED._ = key => key`, which
 * would leave statuses and log lines as bare catalog keys; each module gets Node-RED's own i18n
 * instead, reading the catalog the build copied beside the node, so the tests see the words users
 * see and a missing catalog key shows up as a failing assertion.
 * Call after `helper.startServer()` (it initialises Node-RED's i18n).
 */
export async function loadNodeTypes<T extends string>(types: readonly T[]): Promise<Record<T, NodeModule>> {
  const nodeRedRequire = createRequire(require.resolve(NODE_RED_PACKAGE));
  const { i18n } = nodeRedRequire('@node-red/util') as { i18n: NodeRedI18n };
  const modules = {} as Record<T, NodeModule>;
  for (const type of types) {
    const dir = join(ROOT, 'dist', 'nodes', type);
    const namespace = `flowmcp-test/${type}`;
    await i18n.registerMessageCatalog(namespace, join(dir, 'locales'), `${type}.json`);
    const module = (await import(pathToFileURL(join(dir, `${type}.js`)).href)) as { default: NodeModule };
    modules[type] = (RED: any) => module.default({ ...RED, _: (key: string, params?: Record<string, unknown>) => i18n._(`${namespace}:${key}`, params) });
  }
  return modules;
}

/** An mcp-redis config node; memory mode unless `extra` says otherwise (URL/password go in credentials). */
export function storageDef(id: string, extra: Record<string, unknown> = {}) {
  return { id, type: 'mcp-redis', name: '', mode: 'memory', keyPrefix: '', urlEnv: '', passwordEnv: '', ...extra };
}

/** An mcp-auth config node for an OIDC provider (the secret goes in credentials: `oidcClientSecret`). */
export function authDef(id: string, storage: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    type: 'mcp-auth',
    name: '',
    storage,
    slug: 'team-login',
    provider: 'oidc',
    oidcIssuer: 'http://127.0.0.1:9/',
    oidcClientId: 'node-red-mcp',
    oidcSecretEnv: '',
    oidcEmailClaim: '',
    oidcGroupsClaim: '',
    entraTenantId: '',
    entraClientId: '',
    entraSecretEnv: '',
    entraAuthority: '',
    clientHosts: 'claude.ai',
    pinnedClients: '',
    accessTokenTtl: '900',
    ...extra,
  };
}

/**
 * Everything the Node-RED log received since the last `helper.load`, every level, from any node or
 * the runtime itself, as text (for "this never appears in a log" checks).
 */
export function runtimeLogText(): string[] {
  const spy = (helper as unknown as { log(): { getCalls(): SpyCall[] } | undefined }).log();
  return (spy?.getCalls() ?? []).map((call) => {
    const entry = call.args[0] as { msg?: unknown } | undefined;
    const message = entry?.msg;
    const text = message instanceof Error ? `${message.message}\n${message.stack ?? ''}` : typeof message === 'string' ? message : JSON.stringify(message);
    return `${text} ${JSON.stringify(entry, (_key, value) => (value instanceof Error ? value.message : value))}`;
  });
}
