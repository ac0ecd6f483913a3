import { McpPaletteError } from '../../core/errors.js';
import type { FlowNode } from '../flow-shapes.js';
import { summarizeNode } from '../node-summary.js';
import { paginate } from '../pagination.js';
import type { ConfigScopeName } from './config-scope.js';
import type { ModeAnswer, ModeContext } from './mode-context.js';

// Node-RED itself only follows top-level properties to config nodes; so does this.
const NOT_REFERENCES = new Set(['id', 'type', 'z', 'g', 'x', 'y', 'wires', 'links', 'name']);

/**
 * The config nodes one node uses: property name, config id, type, name and scope. The nearest
 * scope wins, as in Node-RED (tab or subflow before global).
 */
export async function nodeConfigsMode({ args, inspection, sources, scope }: ModeContext): Promise<ModeAnswer> {
  const nodeId = args.nodeId!;
  let node: FlowNode | undefined;
  let scopes: [ConfigScopeName, readonly FlowNode[]][];
  let where: string;
  if (args.id !== undefined) {
    const [tab, global] = await Promise.all([sources.tab(args.id), sources.global()]);
    node = find(tab.nodes, nodeId) ?? find(tab.configs, nodeId);
    scopes = [['tab', tab.configs], ['global', global.configs]];
    where = `tab "${tab.id}"`;
    inspection.scannedNodes += tab.nodes.length + tab.configs.length;
  } else {
    const subflow = await sources.subflow(args.subflowId!);
    const global = await sources.global();
    node = find(subflow.nodes, nodeId) ?? find(subflow.configs, nodeId);
    scopes = [['subflow', subflow.configs], ['global', global.configs]];
    where = `subflow "${subflow.raw.id}"`;
    inspection.scannedNodes += subflow.nodes.length + subflow.configs.length;
  }
  if (!node) throw new McpPaletteError('get_flow_not_found', `${capitalize(where)} has no node "${nodeId}".`);

  const byId = new Map<string, { config: FlowNode; scope: ConfigScopeName }>();
  for (const [name, configs] of [...scopes].reverse()) for (const config of configs) byId.set(config.id, { config, scope: name });
  const references: Record<string, unknown>[] = [];
  for (const [property, value] of Object.entries(node)) {
    if (NOT_REFERENCES.has(property) || typeof value !== 'string') continue;
    const found = byId.get(value);
    if (!found || found.config.id === node.id) continue;
    const reference: Record<string, unknown> = { property, configId: found.config.id, type: found.config.type, scope: found.scope };
    references.push(reference);
  }
  const page = paginate(references, args.offset);
  const named = page.items.map((reference, position) => {
    const config = byId.get(reference.configId as string)!.config;
    const summary = summarizeNode(config, `references[${position}]`, scope);
    return summary.name === undefined ? reference : { ...reference, name: summary.name };
  });
  inspection.returnedNodes = 1 + named.length;
  return { fields: { node: summarizeNode(node, 'node', scope), references: named }, total: page.total, nextOffset: page.nextOffset };
}

function find(nodes: readonly FlowNode[], id: string): FlowNode | undefined {
  return nodes.find((node) => node.id === id);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
