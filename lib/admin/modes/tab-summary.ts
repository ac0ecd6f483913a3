import type { FlowNode } from '../flow-shapes.js';
import { FlowGraph, type Component } from '../graph.js';
import { GET_FLOW_LIMITS } from '../limits.js';
import { summarizeGroup, summarizeNode, tabHeader } from '../node-summary.js';
import { combinedNextOffset, paginate } from '../pagination.js';
import type { ModeAnswer, ModeContext } from './mode-context.js';

// Where messages enter or leave a tab, and the palette's own nodes: what a reader looks for first.
const KEY_TYPES = new Set([
  'inject',
  'http in',
  'http response',
  'http request',
  'link in',
  'link out',
  'link call',
  'catch',
  'status',
  'complete',
  'mqtt in',
  'mqtt out',
  'websocket in',
  'websocket out',
  'tcp in',
  'udp in',
  'mcp-flow-server',
  'mcp-tool-registry',
  'mcp-server-metrics',
]);

function isKeyNode(node: FlowNode): boolean {
  return KEY_TYPES.has(node.type) || node.type.startsWith('subflow:');
}

/** Groups, wired chains, key nodes and counts of one tab; the three lists share `offset`. */
export async function tabSummaryMode({ args, inspection, sources, scope }: ModeContext): Promise<ModeAnswer> {
  const tab = await sources.tab(args.id!);
  const graph = FlowGraph.build(tab.nodes, inspection);
  const { components, complete } = graph.components();
  if (!complete) inspection.truncated = true;
  // Largest first: the main flows of a tab come before stray pairs of nodes.
  const chains = [...components].sort((a, b) => b.ids.length - a.ids.length);
  const nodes = [...graph.nodes.values()];
  const groups = paginate([...graph.groups.values()], args.offset);
  const chainPage = paginate(chains, args.offset);
  const keyNodes = paginate(nodes.filter(isKeyNode), args.offset);
  inspection.returnedNodes = keyNodes.items.length + groups.items.length;

  const wired = new Set(components.flatMap((component) => component.ids));
  return {
    fields: {
      tab: tabHeader(tab, scope, true),
      counts: {
        nodes: graph.nodes.size,
        groups: graph.groups.size,
        configs: tab.configs.length,
        wires: graph.edgeCount,
        chains: chains.length,
        unwiredNodes: nodes.filter((node) => !wired.has(node.id)).length,
        // Nodes past the node cap: in no list and no chain; chains wired to them say so.
        omittedNodes: graph.omittedNodes,
        keyNodes: keyNodes.total,
        types: countTypes(nodes),
      },
      groups: groups.items.map((group, position) => summarizeGroup(group, `groups[${position}]`, scope)),
      chains: chainPage.items.map((chain) => describeChain(chain, graph)),
      keyNodes: keyNodes.items.map((node, position) => summarizeNode(node, `keyNodes[${position}]`, scope)),
    },
    nextOffset: combinedNextOffset(groups, chainPage, keyNodes),
  };
}

function describeChain(chain: Component, graph: FlowGraph): Record<string, unknown> {
  const inner = GET_FLOW_LIMITS.innerListSize;
  const entries = chain.ids.filter((id) => graph.incoming(id).length === 0);
  const types = [...new Set(chain.ids.map((id) => graph.nodes.get(id)?.type ?? 'unknown'))];
  return {
    startNodeId: chain.ids[0],
    nodeCount: chain.ids.length,
    complete: chain.complete,
    omittedWires: chain.omittedWires,
    entryNodeIds: entries.slice(0, inner),
    types: types.slice(0, inner),
  };
}

/** The ten most common node types, most common first. */
function countTypes(nodes: readonly FlowNode[]): { type: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const node of nodes) counts.set(node.type, (counts.get(node.type) ?? 0) + 1);
  return [...counts.entries()]
    .map(([type, count]) => ({ type, count }))
    .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type))
    .slice(0, GET_FLOW_LIMITS.innerListSize);
}
