import { McpPaletteError } from '../../core/errors.js';
import type { FlowNode, TabDocument } from '../flow-shapes.js';
import type { FlowGraph } from '../graph.js';

/** A flow node of the tab, or an error that points to the mode that fits what the id is. */
export function findTabNode(graph: FlowGraph, tab: TabDocument, nodeId: string): FlowNode {
  const node = graph.nodes.get(nodeId);
  if (node) return node;
  if (graph.groups.has(nodeId)) {
    throw new McpPaletteError('get_flow_invalid_arguments', `"${nodeId}" is a group; use mode "group" with groupId.`);
  }
  if (tab.configs.some((config) => config.id === nodeId)) {
    throw new McpPaletteError('get_flow_invalid_arguments', `"${nodeId}" is a config node; use mode "config" with configId and id.`);
  }
  const beyondCap = !graph.complete && tab.nodes.some((entry) => entry.id === nodeId);
  throw new McpPaletteError(
    'get_flow_not_found',
    beyondCap
      ? `Node "${nodeId}" is on tab "${tab.id}" but past the graph limit of inspected nodes.`
      : `Tab "${tab.id}" has no node "${nodeId}". Use mode "tab_summary" or "chain" to find node ids.`,
  );
}
