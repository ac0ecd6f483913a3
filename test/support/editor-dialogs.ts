// The editor tests' shared workspace: the shipped example flow plus one node of each type it lacks,
// so every dialog of the palette can be opened, and the field each dialog shows first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exampleFlow, oidcAuth, storage } from './flows.js';
import { repoRoot, type FlowNode } from './node-red-process.js';

export const ADD_NUMBERS = '5a1e0c7d2b3f4e04';
export const GREET = '5a1e0c7d2b3f4e05';
export const FLOW_SERVER = '5a1e0c7d2b3f4e03';
export const RUNTIME = '5a1e0c7d2b3f4e02';
export const EXAMPLE_TAB = '5a1e0c7d2b3f4e01';
export const STORAGE = 'ed0000000000aa01';
export const AUTH = 'ed0000000000aa02';
export const METRICS = 'ed0000000000aa03';
export const RESOURCE = '7b2c0e1d4a5f6006';
export const PROMPT = '7b2c0e1d4a5f6009';
export const APP_VIEW = '8c3d1f2e5b6a7005';

function plantStatusNodes(ids: string[]): FlowNode[] {
  return exampleNodes('plant-status.json', ids);
}

function exampleNodes(file: string, ids: string[]): FlowNode[] {
  const flows = JSON.parse(readFileSync(join(repoRoot, 'examples', file), 'utf8')) as FlowNode[];
  return ids.map((id) => flows.find((node) => node.id === id)!);
}

/** Beside the example, one node of each type it lacks, so every dialog can be opened. */
export const otherMcpNodes: FlowNode[] = [
  storage(STORAGE, 'memory'),
  oidcAuth(AUTH, { storage: STORAGE, issuer: 'https://login.example.com/realms/staff', clientId: 'node-red', secretEnv: 'MCP_EDITOR_TEST_SECRET' }),
  { id: METRICS, type: 'mcp-server-metrics', z: EXAMPLE_TAB, name: '', runtime: RUNTIME, x: 160, y: 420, wires: [[]] },
  // A resource and a prompt as the plant-status example has them, bound to the example's endpoint.
  ...plantStatusNodes([RESOURCE, PROMPT]).map((node) => ({ ...node, z: EXAMPLE_TAB, endpoint: '/mcp' })),
  // The live chart example's view, likewise.
  ...exampleNodes('app-live-chart.json', [APP_VIEW]).map((node) => ({ ...node, z: EXAMPLE_TAB, endpoint: '/mcp', x: 160, y: 480 })),
];

/** The example flow on `port` with one node of every palette type. */
export function everyDialogFlow(port: number): FlowNode[] {
  return [...exampleFlow(port), ...otherMcpNodes];
}

/** Every node type of the palette, one node each, and the field its dialog shows first. */
export const DIALOGS = [
  { type: 'mcp-flow-server', id: FLOW_SERVER, field: '#node-input-serverName', config: false },
  { type: 'mcp-tool-registry', id: ADD_NUMBERS, field: '#node-input-toolName', config: false },
  { type: 'mcp-server-metrics', id: METRICS, field: '#node-input-runtime', config: false },
  { type: 'mcp-resource', id: RESOURCE, field: '#node-input-resourceName', config: false },
  { type: 'mcp-prompt', id: PROMPT, field: '#node-input-promptName', config: false },
  { type: 'mcp-app-view', id: APP_VIEW, field: '#node-input-resourceName', config: false },
  { type: 'mcp-runtime', id: RUNTIME, field: '#node-config-input-host', config: true },
  { type: 'mcp-redis', id: STORAGE, field: '#node-config-input-mode', config: true },
  { type: 'mcp-auth', id: AUTH, field: '#node-config-input-slug', config: true },
] as const;

type Catalog = { [key: string]: string | Catalog };

/** One language's catalog of a node type, as the working tree has it (what pack-fixture ships). */
export function catalogFile(lang: string, type: string): Map<string, string> {
  const parsed = JSON.parse(readFileSync(join(repoRoot, 'locales', lang, `${type}.json`), 'utf8')) as Record<string, Catalog>;
  const entries = new Map<string, string>();
  const walk = (catalog: Catalog, prefix: string) => {
    for (const [key, value] of Object.entries(catalog)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (typeof value === 'string') entries.set(path, value);
      else walk(value, path);
    }
  };
  walk(parsed[type]!, '');
  return entries;
}

/** One language's help page of a node type, as plain text. */
export function helpFileText(lang: string, type: string): string {
  return readFileSync(join(repoRoot, 'locales', lang, `${type}.html`), 'utf8')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
