import { McpPaletteError } from '../core/errors.js';
import { isPlainObject } from '../mcp/json-schema.js';

/** One entry of a Node-RED flow configuration, as the admin API returns it. */
export type FlowNode = Readonly<Record<string, unknown>> & { readonly id: string; readonly type: string };

/** `GET /flow/:id`: one tab with its nodes (groups first) and tab-scoped config nodes. */
export interface TabDocument {
  readonly id: string;
  readonly label: string | undefined;
  readonly disabled: boolean;
  readonly env: unknown;
  readonly nodes: readonly FlowNode[];
  readonly configs: readonly FlowNode[];
}

/** One subflow definition inside `GET /flow/global` (Node-RED drops its instance list there). */
export interface SubflowDefinition {
  readonly raw: FlowNode;
  readonly nodes: readonly FlowNode[];
  readonly configs: readonly FlowNode[];
}

/** `GET /flow/global`: global config nodes and subflow definitions. */
export interface GlobalDocument {
  readonly configs: readonly FlowNode[];
  readonly subflows: readonly SubflowDefinition[];
}

export function parseTabDocument(value: unknown): TabDocument {
  if (!isPlainObject(value) || typeof value.id !== 'string') throw badShape('/flow/:id');
  return {
    id: value.id,
    label: typeof value.label === 'string' ? value.label : undefined,
    disabled: value.disabled === true,
    env: value.env,
    nodes: flowNodes(value.nodes),
    configs: flowNodes(value.configs),
  };
}

export function parseGlobalDocument(value: unknown): GlobalDocument {
  if (!isPlainObject(value)) throw badShape('/flow/global');
  const subflows = Array.isArray(value.subflows) ? value.subflows : [];
  return {
    configs: flowNodes(value.configs),
    subflows: subflows.filter(isFlowNode).map((raw) => ({ raw, nodes: flowNodes(raw.nodes), configs: flowNodes(raw.configs) })),
  };
}

export function isFlowNode(value: unknown): value is FlowNode {
  return isPlainObject(value) && typeof value.id === 'string' && typeof value.type === 'string';
}

export function isGroup(node: FlowNode): boolean {
  return node.type === 'group';
}

export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The subflow a node instantiates (`subflow:<id>`), if it is an instance. */
export function subflowOf(node: FlowNode): string | undefined {
  return node.type.startsWith('subflow:') ? node.type.slice('subflow:'.length) : undefined;
}

function flowNodes(value: unknown): FlowNode[] {
  return Array.isArray(value) ? value.filter(isFlowNode) : [];
}

function badShape(route: string): McpPaletteError {
  return new McpPaletteError('get_flow_bad_response', `The Node-RED admin API answered ${route} with an unexpected document.`);
}
