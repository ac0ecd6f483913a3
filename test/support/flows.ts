import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FlowNode } from './node-red-process.js';
import { repoRoot } from './node-red-process.js';

export const TAB = 'tab-tests';

/** A shipped example flow with its runtime moved to `port`, as a user would deploy it. */
export function exampleFlow(port: number, file = 'two-tools.json'): FlowNode[] {
  const flows = JSON.parse(readFileSync(join(repoRoot, 'examples', file), 'utf8')) as FlowNode[];
  return flows.map((node) => (node.type === 'mcp-runtime' ? { ...node, port: String(port) } : node));
}

/** The shipped telemetry example with its runtime moved to `port`. */
export function telemetryExampleFlow(port: number): FlowNode[] {
  const flows = JSON.parse(readFileSync(join(repoRoot, 'examples', 'telemetry.json'), 'utf8')) as FlowNode[];
  return flows.map((node) => (node.type === 'mcp-runtime' ? { ...node, port: String(port) } : node));
}

export function tab(id = TAB): FlowNode {
  return { id, type: 'tab', label: id, disabled: false, info: '' };
}

export function runtime(id: string, port: number, host = '127.0.0.1'): FlowNode {
  return { id, type: 'mcp-runtime', name: '', port: String(port), host, baseUrl: '' };
}

export function flowServer(id: string, options: { runtime: string; path?: string; wires?: string[]; maxConcurrent?: number; serverName?: string; access?: string; z?: string }): FlowNode {
  return {
    id,
    type: 'mcp-flow-server',
    z: options.z ?? TAB,
    name: '',
    serverName: options.serverName ?? 'test-server',
    path: options.path ?? '/mcp',
    runtime: options.runtime,
    access: options.access ?? 'local',
    maxConcurrent: String(options.maxConcurrent ?? 32),
    x: 100,
    y: 100,
    wires: [options.wires ?? []],
  };
}

export function tool(
  id: string,
  options: { name: string; endpoint?: string; input?: object; output?: object; timeout?: number; maxDuration?: number; taskSupport?: 'never' | 'optional' | 'required'; z?: string },
): FlowNode {
  return {
    id,
    type: 'mcp-tool-registry',
    z: options.z ?? TAB,
    name: '',
    toolName: options.name,
    title: '',
    description: `test tool ${options.name}`,
    inputSchema: JSON.stringify(options.input ?? { type: 'object', properties: {} }),
    outputSchema: options.output ? JSON.stringify(options.output) : '',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
    endpoint: options.endpoint ?? '/mcp',
    timeout: String(options.timeout ?? 60),
    ...(options.maxDuration !== undefined ? { maxDuration: String(options.maxDuration) } : {}),
    ...(options.taskSupport !== undefined ? { taskSupport: options.taskSupport } : {}),
    x: 100,
    y: 40,
    wires: [],
  };
}

/** A function node that answers each call with what `body` returns (evaluated in Node-RED). */
export function answer(id: string, body: string, back: string, z = TAB): FlowNode {
  return {
    id,
    type: 'function',
    z,
    name: id,
    func: body,
    outputs: 1,
    timeout: 0,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    x: 300,
    y: 100,
    wires: [back ? [back] : []],
  };
}

/**
 * The body of a cancel branch for a job that keeps its timer in flow context under `job-<executionId>`:
 * stops the timer with `clear` (the one that matches how the job started it) and says in the log
 * `job-cancelled <executionId> reason=<reason> stopped=<whether a job was running>`.
 */
export const stopJobOnCancel = (clear: 'clearInterval' | 'clearTimeout') => `const timer = flow.get('job-' + msg.payload.executionId);
if (timer) ${clear}(timer);
flow.set('job-' + msg.payload.executionId, undefined);
node.warn('job-cancelled ' + msg.payload.executionId + ' reason=' + msg.payload.reason + ' stopped=' + Boolean(timer));
return null;`;

/** A Switch on msg.topic: each topic to its node (e.g. mcp-tool-execute to a router, mcp-tool-cancel to a logger). */
export function topicSwitch(id: string, routes: Record<string, string>, z = TAB): FlowNode {
  const topics = Object.keys(routes);
  return {
    id,
    type: 'switch',
    z,
    name: 'by topic',
    property: 'topic',
    propertyType: 'msg',
    rules: topics.map((topic) => ({ t: 'eq', v: topic, vt: 'str' })),
    checkall: 'false',
    repair: false,
    outputs: topics.length,
    x: 150,
    y: 100,
    wires: topics.map((topic) => [routes[topic]]),
  };
}

/** Routes execute messages by tool name to the given node ids (one output per tool). */
export function router(id: string, routes: Record<string, string>, z = TAB): FlowNode {
  const names = Object.keys(routes);
  return {
    id,
    type: 'switch',
    z,
    name: 'route',
    property: 'payload.toolName',
    propertyType: 'msg',
    rules: names.map((name) => ({ t: 'eq', v: name, vt: 'str' })),
    checkall: 'false',
    repair: false,
    outputs: names.length,
    x: 200,
    y: 100,
    wires: names.map((name) => [routes[name]]),
  };
}

export function storage(id: string, mode: 'memory' | 'redis', urlEnv?: string): FlowNode {
  return { id, type: 'mcp-redis', name: '', mode, keyPrefix: 'mcptest', urlEnv: urlEnv ?? '', passwordEnv: '' };
}

/** An mcp-redis node in Redis Sentinel mode, its sentinel list read from the env variable `sentinelsEnv`. */
export function sentinelStorage(id: string, sentinelsEnv: string, group: string): FlowNode {
  return { id, type: 'mcp-redis', name: '', mode: 'sentinel', keyPrefix: 'mcptest', urlEnv: '', passwordEnv: '', sentinels: '', sentinelsEnv, sentinelName: group };
}

/** An mcp-redis node in Redis Cluster mode, its seed nodes read from the env variable `nodesEnv`. */
export function clusterStorage(id: string, nodesEnv: string): FlowNode {
  return { id, type: 'mcp-redis', name: '', mode: 'cluster', keyPrefix: 'mcptest', urlEnv: '', passwordEnv: '', clusterNodes: '', clusterNodesEnv: nodesEnv };
}

/** What every mcp-auth of the tests shares, whatever its provider. */
interface AuthOptions {
  storage: string;
  clientId: string;
  secretEnv: string;
  slug?: string;
  clientHosts?: string;
  pinned?: object[];
  ttl?: number;
}

function auth(id: string, provider: 'oidc' | 'entra', options: AuthOptions): FlowNode {
  return {
    id,
    type: 'mcp-auth',
    name: '',
    provider,
    storage: options.storage,
    slug: options.slug ?? 'team',
    clientHosts: options.clientHosts ?? '',
    accessTokenTtl: String(options.ttl ?? 900),
    pinnedClients: options.pinned ? JSON.stringify(options.pinned) : '',
    [`${provider}ClientId`]: options.clientId,
    [`${provider}SecretEnv`]: options.secretEnv,
  };
}

export function oidcAuth(id: string, options: AuthOptions & { issuer: string }): FlowNode {
  return { ...auth(id, 'oidc', options), oidcIssuer: options.issuer, oidcEmailClaim: 'email', oidcGroupsClaim: 'groups' };
}

export function runtimeWithBaseUrl(id: string, port: number): FlowNode {
  return { ...runtime(id, port), baseUrl: `http://127.0.0.1:${port}` };
}

/** A runtime listening on `port` whose public Base URL is `baseUrl` (an instance behind a load balancer). */
export function runtimeBehind(id: string, port: number, baseUrl: string): FlowNode {
  return { ...runtime(id, port), baseUrl };
}

/** An endpoint with OAuth sign-in through the mcp-auth `auth`, open to members of `groups`. */
export function oauthServer(
  id: string,
  options: { runtime: string; auth: string; path: string; groups: string; wires?: string[]; serverName?: string; z?: string },
): FlowNode {
  return { ...flowServer(id, options), access: 'oauth', auth: options.auth, groups: options.groups };
}

/**
 * The head of an instance's flows behind a load balancer, sharing Redis (MCP_TEST_REDIS_URL) with the
 * others: its runtime on `port` with the public `baseUrl`, OIDC sign-in at `issuer` through the bridge
 * client (`bridge`: its id and secret variable) with `pinned` client documents, and the OAuth endpoint
 * `fs` at /tools for mcp-users, wired to `wires`. Each test adds the flow and tools behind it.
 */
export function sharedRedisInstance(options: { port: number; baseUrl: string; issuer: string; bridge: { clientId: string; secretEnv: string }; pinned: object[]; wires?: string[] }): FlowNode[] {
  return [
    tab(),
    runtimeBehind('rt', options.port, options.baseUrl),
    storage('store', 'redis', 'MCP_TEST_REDIS_URL'),
    oidcAuth('auth', { storage: 'store', issuer: options.issuer, ...options.bridge, pinned: options.pinned }),
    oauthServer('fs', { runtime: 'rt', auth: 'auth', path: '/tools', groups: 'mcp-users', wires: options.wires }),
  ];
}

/** An mcp-auth with the Microsoft Entra ID provider; `authority` may be a loopback test provider's origin. */
export function entraAuth(id: string, options: AuthOptions & { tenantId: string; authority?: string }): FlowNode {
  return { ...auth(id, 'entra', options), entraTenantId: options.tenantId, entraAuthority: options.authority ?? '' };
}

/** The shipped plant-status example (resources, a template, a prompt) with its runtime moved to `port`. */
export function plantStatusFlow(port: number): FlowNode[] {
  const flows = JSON.parse(readFileSync(join(repoRoot, 'examples', 'plant-status.json'), 'utf8')) as FlowNode[];
  return flows.map((node) => (node.type === 'mcp-runtime' ? { ...node, port: String(port) } : node));
}

export function resource(id: string, options: { name?: string; uri: string; endpoint?: string; source?: 'flow' | 'static'; text?: string; timeout?: number; mimeType?: string; z?: string }): FlowNode {
  return {
    id,
    type: 'mcp-resource',
    z: options.z ?? TAB,
    name: '',
    resourceName: options.name ?? id,
    uri: options.uri,
    title: '',
    description: `test resource ${id}`,
    mimeType: options.mimeType ?? 'text/plain',
    source: options.source ?? 'flow',
    text: options.text ?? '',
    completions: '',
    endpoint: options.endpoint ?? '/mcp',
    timeout: String(options.timeout ?? 60),
    x: 100,
    y: 60,
    wires: [],
  };
}

/** An MCP Apps view (`mcp-app-view`) on an endpoint (default `/apps`). */
export function appView(id: string, options: { uri: string; source: 'static' | 'flow'; text?: string; connectDomains?: string; prefersBorder?: string; endpoint?: string; z?: string }): FlowNode {
  return {
    id,
    type: 'mcp-app-view',
    z: options.z ?? TAB,
    name: '',
    resourceName: id,
    uri: options.uri,
    title: '',
    description: `view ${id}`,
    source: options.source,
    text: options.text ?? '',
    connectDomains: options.connectDomains ?? '',
    resourceDomains: '',
    frameDomains: '',
    baseUriDomains: '',
    camera: false,
    microphone: false,
    geolocation: false,
    clipboardWrite: false,
    prefersBorder: options.prefersBorder ?? '',
    domain: '',
    endpoint: options.endpoint ?? '/apps',
    timeout: '10',
    x: 100,
    y: 80,
    wires: [],
  };
}

export function prompt(id: string, options: { name: string; endpoint?: string; source?: 'template' | 'flow'; arguments?: object[]; messages?: object[]; timeout?: number; z?: string }): FlowNode {
  return {
    id,
    type: 'mcp-prompt',
    z: options.z ?? TAB,
    name: '',
    promptName: options.name,
    title: '',
    description: `test prompt ${options.name}`,
    arguments: options.arguments ?? [],
    source: options.source ?? 'template',
    messages: options.messages ?? [{ role: 'user', text: 'hello' }],
    endpoint: options.endpoint ?? '/mcp',
    timeout: String(options.timeout ?? 60),
    x: 100,
    y: 80,
    wires: [],
  };
}
