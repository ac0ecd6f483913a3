import { FlowGraph } from '../graph.js';
import { collectEdges, summarizeNode, tabHeader } from '../node-summary.js';
import { paginate } from '../pagination.js';
import { findTabNode } from './find-node.js';
import type { ModeAnswer, ModeContext } from './mode-context.js';

/** The wired component holding one node: direct wires only, never across link nodes. */
export async function chainMode({ args, inspection, sources, scope }: ModeContext): Promise<ModeAnswer> {
  const tab = await sources.tab(args.id!);
  const graph = FlowGraph.build(tab.nodes, inspection);
  const node = findTabNode(graph, tab, args.nodeId!);
  const component = graph.component(node.id);
  if (!component.complete) inspection.truncated = true;
  const page = paginate(component.ids, args.offset);
  const { edges, total } = collectEdges(graph, page.items, false, scope);
  inspection.returnedNodes = page.items.length;
  return {
    fields: {
      tab: tabHeader(tab, scope),
      chain: { startNodeId: node.id, nodeCount: component.ids.length, complete: component.complete, omittedWires: component.omittedWires },
      nodes: page.items.map((id, position) => summarizeNode(graph.nodes.get(id)!, `nodes[${position}]`, scope)),
      edges,
      edgeCount: total,
    },
    total: page.total,
    nextOffset: page.nextOffset,
  };
}
