import { copyEnv } from '../copy-value.js';
import { FlowGraph } from '../graph.js';
import { GET_FLOW_LIMITS } from '../limits.js';
import { functionCode } from '../node-code.js';
import { configSupported, nodeSettings } from '../node-settings.js';
import { summarizeNode, tabHeader } from '../node-summary.js';
import { findTabNode } from './find-node.js';
import type { ModeAnswer, ModeContext } from './mode-context.js';

/** One node with its direct wires; code and execution settings only when asked for. */
export async function nodeMode({ args, inspection, sources, scope }: ModeContext): Promise<ModeAnswer> {
  const tab = await sources.tab(args.id!);
  const graph = FlowGraph.build(tab.nodes, inspection);
  const node = findTabNode(graph, tab, args.nodeId!);
  const summary = summarizeNode(node, 'node', scope);
  if (Array.isArray(node.wires)) summary.outputs = node.wires.length;
  if (node.env !== undefined) summary.env = copyEnv(node.env, 'node.env', scope);
  summary.configSupported = configSupported(node.type);

  const incoming = graph.incoming(node.id);
  const outgoing = graph.outgoing(node.id);
  const max = GET_FLOW_LIMITS.maxEdges;
  if (incoming.length > max || outgoing.length > max) inspection.truncated = true;
  inspection.returnedNodes = 1;

  const fields: Record<string, unknown> = {
    tab: tabHeader(tab, scope),
    node: summary,
    incoming: incoming.slice(0, max),
    outgoing: outgoing.slice(0, max),
  };
  if (args.includeCode) {
    const code = functionCode(node, inspection);
    if (code) fields.code = code;
  }
  if (args.includeConfig) {
    const settings = nodeSettings(node, inspection);
    if (settings) fields.config = settings;
  }
  return { fields };
}
