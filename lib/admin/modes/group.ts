import { McpPaletteError } from '../../core/errors.js';
import { FlowGraph } from '../graph.js';
import { collectEdges, summarizeGroup, summarizeNode, tabHeader } from '../node-summary.js';
import { paginate } from '../pagination.js';
import type { ModeAnswer, ModeContext } from './mode-context.js';

/** One group's members (nested groups included) and the direct wires touching them. */
export async function groupMode({ args, inspection, sources, scope }: ModeContext): Promise<ModeAnswer> {
  const tab = await sources.tab(args.id!);
  const graph = FlowGraph.build(tab.nodes, inspection);
  const group = graph.groups.get(args.groupId!);
  if (!group) {
    throw new McpPaletteError('get_flow_not_found', `Tab "${tab.id}" has no group "${args.groupId}". Use mode "tab_summary" to list its groups.`);
  }
  // A member says `g`; the group also lists `nodes`. Either is enough (older flows may have only one).
  const listed = new Set(Array.isArray(group.nodes) ? group.nodes.filter((id): id is string => typeof id === 'string') : []);
  const members = tab.nodes.filter((node) => node.id !== group.id && (node.g === group.id || listed.has(node.id)));
  const page = paginate(members, args.offset);
  const memberIds = page.items.filter((node) => node.type !== 'group').map((node) => node.id);
  const { edges, total } = collectEdges(graph, memberIds, true, scope);
  inspection.returnedNodes = page.items.length;
  return {
    fields: {
      tab: tabHeader(tab, scope),
      group: summarizeGroup(group, 'group', scope),
      members: page.items.map((node, position) =>
        node.type === 'group' ? summarizeGroup(node, `members[${position}]`, scope) : summarizeNode(node, `members[${position}]`, scope),
      ),
      edges,
      edgeCount: total,
    },
    total: page.total,
    nextOffset: page.nextOffset,
  };
}
