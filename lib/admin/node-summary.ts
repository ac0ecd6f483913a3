import { subflowOf, type FlowNode } from './flow-shapes.js';
import { copyEnv, copyProperty, type CopyScope } from './copy-value.js';
import type { Edge, FlowGraph } from './graph.js';
import { GET_FLOW_LIMITS } from './limits.js';
import { childPath } from './redaction.js';

// Identifiers and labels only: what a node is called and where it is reached, never its settings.
const LABEL_KEYS = ['name', 'label'];
const TYPE_IDENTIFIERS: Readonly<Record<string, readonly string[]>> = {
  'http in': ['method', 'url'],
  'mcp-flow-server': ['path'],
  'mcp-tool-registry': ['toolName', 'endpoint'],
};

/** The allowlisted view of one node used by every list (tab summary, group, chain, node). */
export function summarizeNode(node: FlowNode, path: string, scope: CopyScope): Record<string, unknown> {
  const summary: Record<string, unknown> = { id: node.id, type: node.type };
  for (const key of [...LABEL_KEYS, ...(TYPE_IDENTIFIERS[node.type] ?? [])]) {
    const value = node[key];
    if (typeof value !== 'string' || value === '') continue;
    const copied = copyProperty(key, value, childPath(path, key), scope);
    if (copied) summary[key] = copied.value;
  }
  if (typeof node.g === 'string') summary.group = node.g;
  if (node.d === true) summary.disabled = true;
  const subflow = subflowOf(node);
  if (subflow !== undefined) summary.subflow = subflow;
  if (Array.isArray(node.links)) {
    // Link targets are shown, never followed: they may sit on other tabs.
    const links = node.links.filter((link): link is string => typeof link === 'string');
    summary.links = links.slice(0, GET_FLOW_LIMITS.pageSize);
    if (links.length > GET_FLOW_LIMITS.pageSize) {
      summary.linksTotal = links.length;
      scope.inspection.truncated = true;
    }
  }
  return summary;
}

export function summarizeGroup(group: FlowNode, path: string, scope: CopyScope): Record<string, unknown> {
  const summary = summarizeNode(group, path, scope);
  if (Array.isArray(group.nodes)) summary.nodeCount = group.nodes.length;
  if (group.env !== undefined) summary.env = copyEnv(group.env, childPath(path, 'env'), scope);
  return summary;
}

/**
 * Edges leaving `ids` and, with `touching`, edges arriving from outside them, at most 80.
 * `total` counts them all, so a capped list says how much it left out.
 */
export function collectEdges(graph: FlowGraph, ids: readonly string[], touching: boolean, scope: CopyScope): { edges: Edge[]; total: number } {
  const inside = new Set(ids);
  const edges: Edge[] = [];
  let total = 0;
  const add = (edge: Edge) => {
    total += 1;
    if (edges.length < GET_FLOW_LIMITS.maxEdges) edges.push(edge);
  };
  for (const id of ids) {
    for (const edge of graph.outgoing(id)) add(edge);
    if (touching) for (const edge of graph.incoming(id)) if (!inside.has(edge.source)) add(edge);
  }
  if (total > edges.length) scope.inspection.truncated = true;
  return { edges, total };
}

/** A tab's header: id, label, state and (for the summary) its env list with every value hidden. */
export function tabHeader(
  tab: { id: string; label: string | undefined; disabled: boolean; env?: unknown },
  scope: CopyScope,
  withEnv = false,
): Record<string, unknown> {
  const header: Record<string, unknown> = { id: tab.id };
  if (tab.label !== undefined) {
    const label = copyProperty('label', tab.label, 'tab.label', scope);
    if (label) header.label = label.value;
  }
  header.disabled = tab.disabled;
  if (withEnv && tab.env !== undefined) header.env = copyEnv(tab.env, 'tab.env', scope);
  return header;
}
