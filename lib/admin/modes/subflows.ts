import { copyEnv, copyProperty, type CopyScope } from '../copy-value.js';
import { isGroup, textOf, type SubflowDefinition } from '../flow-shapes.js';
import { FlowGraph } from '../graph.js';
import { GET_FLOW_LIMITS } from '../limits.js';
import { collectEdges, summarizeNode, tabHeader } from '../node-summary.js';
import { paginate } from '../pagination.js';
import type { ModeAnswer, ModeContext } from './mode-context.js';

/** The subflow definition index from `/flow/global`. */
export async function subflowsMode({ args, inspection, sources, scope }: ModeContext): Promise<ModeAnswer> {
  const global = await sources.global();
  inspection.scannedNodes += global.subflows.length;
  const page = paginate(global.subflows, args.offset);
  return {
    fields: { subflows: page.items.map((subflow, position) => describeSubflow(subflow, `subflows[${position}]`, scope, false)) },
    total: page.total,
    nextOffset: page.nextOffset,
  };
}

/**
 * One subflow definition with its contained nodes, or, given a tab `id`, with its instances on
 * that tab (Node-RED's `/flow/global` carries no instance list, so usages need the tab).
 */
export async function subflowMode({ args, inspection, sources, scope }: ModeContext): Promise<ModeAnswer> {
  const [subflow, tab] = await Promise.all([sources.subflow(args.subflowId!), args.id !== undefined ? sources.tab(args.id) : undefined]);
  const definition = describeSubflow(subflow, 'subflow', scope, true);
  if (tab) {
    const type = `subflow:${subflow.raw.id}`;
    const scanned = tab.nodes.slice(0, GET_FLOW_LIMITS.maxGraphNodes);
    inspection.scannedNodes += scanned.length;
    if (scanned.length < tab.nodes.length) inspection.truncated = true;
    const page = paginate(scanned.filter((node) => node.type === type), args.offset);
    inspection.returnedNodes = page.items.length;
    const usages = page.items.map((node, position) => {
      const usage = summarizeNode(node, `usages[${position}]`, scope);
      if (node.env !== undefined) usage.env = copyEnv(node.env, `usages[${position}].env`, scope);
      return usage;
    });
    return { fields: { subflow: definition, tab: tabHeader(tab, scope), usages }, total: page.total, nextOffset: page.nextOffset };
  }
  const graph = FlowGraph.build(subflow.nodes, inspection);
  const page = paginate([...graph.nodes.values()], args.offset);
  const { edges, total } = collectEdges(graph, page.items.map((node) => node.id), false, scope);
  inspection.returnedNodes = page.items.length;
  return {
    fields: {
      subflow: definition,
      nodes: page.items.map((node, position) => summarizeNode(node, `nodes[${position}]`, scope)),
      edges,
      edgeCount: total,
    },
    total: page.total,
    nextOffset: page.nextOffset,
  };
}

function describeSubflow(subflow: SubflowDefinition, path: string, scope: CopyScope, detailed: boolean): Record<string, unknown> {
  const raw = subflow.raw;
  const entry: Record<string, unknown> = { id: raw.id };
  for (const key of ['name', 'category']) {
    const value = textOf(raw[key]);
    if (value === undefined) continue;
    const copied = copyProperty(key, value, `${path}.${key}`, scope);
    if (copied) entry[key] = copied.value;
  }
  const inputs = Array.isArray(raw.in) ? raw.in : [];
  const outputs = Array.isArray(raw.out) ? raw.out : [];
  Object.assign(entry, {
    inputs: inputs.length,
    outputs: outputs.length,
    nodeCount: subflow.nodes.filter((node) => !isGroup(node)).length,
    configCount: subflow.configs.length,
  });
  if (!detailed) return entry;
  if (raw.env !== undefined) entry.env = copyEnv(raw.env, `${path}.env`, scope);
  // Ports are wired by `{ id }` (input) and `{ id, port }` (output) entries, not by `wires` arrays.
  entry.inputWires = inputs.map((port, index) => ({ port: index, targets: portIds(port).map((wire) => wire.id) }));
  entry.outputWires = outputs.map((port, index) => ({ port: index, sources: portIds(port) }));
  return entry;
}

function portIds(port: unknown): { id: string; port?: number }[] {
  const wires = (port as { wires?: unknown } | null)?.wires;
  if (!Array.isArray(wires)) return [];
  return wires
    .filter((wire): wire is { id: string; port?: unknown } => typeof (wire as { id?: unknown } | null)?.id === 'string')
    .slice(0, GET_FLOW_LIMITS.pageSize)
    .map((wire) => (typeof wire.port === 'number' ? { id: wire.id, port: wire.port } : { id: wire.id }));
}
