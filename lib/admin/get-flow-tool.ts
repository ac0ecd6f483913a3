import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { isPaletteError } from '../core/errors.js';
import { isPlainObject } from '../core/is-plain-object.js';
import { compileSchema } from '../mcp/json-schema.js';
import type { InProcessResult, ToolDefinition } from '../mcp/tool-definition.js';
import { toolError } from '../mcp/tool-result.js';
import { AdminClient } from './admin-client.js';
import { GET_FLOW_MODES, resolveArguments, type GetFlowArguments, type GetFlowMode } from './arguments.js';
import { FlowSources } from './flow-sources.js';
import { GET_FLOW_INPUT_SCHEMA, GET_FLOW_OUTPUT_SCHEMA } from './get-flow-schema.js';
import { Inspection } from './inspection.js';
import { GET_FLOW_LIMITS } from './limits.js';
import { chainMode } from './modes/chain.js';
import { configMode, configsMode } from './modes/configs.js';
import { groupMode } from './modes/group.js';
import type { ModeAnswer, ModeHandler } from './modes/mode-context.js';
import { nodeConfigsMode } from './modes/node-configs.js';
import { nodeMode } from './modes/node.js';
import { subflowMode, subflowsMode } from './modes/subflows.js';
import { tabSummaryMode } from './modes/tab-summary.js';
import { tabsMode } from './modes/tabs.js';
import { TabIndex, type EachNode } from './tab-index.js';

export const GET_FLOW_TOOL_NAME = 'get_flow';

export interface GetFlowOptions {
  /** Node-RED admin API origin, e.g. http://127.0.0.1:1880 (the runtime's Admin Port on loopback). */
  readonly adminBaseUrl: string;
  /** Bearer token for the admin API (read-only permissions suffice: only GET is used). */
  readonly token: string;
  /** Walks the DEPLOYED configuration in memory (the node file passes RED.nodes.eachNode). */
  readonly eachNode: EachNode;
  /** Increments on every deploy; the tab index is cached until it changes. */
  readonly deployGeneration: () => number;
  readonly fetchImpl?: typeof fetch;
  /** One admin read's time limit (default 15 s); tests shorten it. */
  readonly adminTimeoutMs?: number;
}

const HANDLERS: Readonly<Record<GetFlowMode, ModeHandler>> = {
  tabs: tabsMode,
  tab_summary: tabSummaryMode,
  group: groupMode,
  chain: chainMode,
  node: nodeMode,
  subflows: subflowsMode,
  subflow: subflowMode,
  configs: configsMode,
  config: configMode,
  node_configs: nodeConfigsMode,
};

const DESCRIPTION = [
  'Read-only inspection of the deployed Node-RED flows, in small pages.',
  'No arguments: the tabs. mode "tab_summary" + id: groups, wired chains, key nodes. mode "group" + id + groupId;',
  'mode "chain" + id + nodeId: the wired component of a node; mode "node" + id + nodeId (includeCode, includeConfig).',
  'mode "subflows"; mode "subflow" + subflowId (+ id for its usages on a tab).',
  'mode "configs" (+ id or subflowId); mode "config" + configId (+ id or subflowId); mode "node_configs" + nodeId + id or subflowId.',
  'Continue lists with offset = meta.nextOffset. Secrets, credentials and env values are redacted.',
].join(' ');

/**
 * The admin `get_flow` tool, answered in this process: the tab list from the deployed
 * configuration in memory, everything else from GET `/flow/:id` and `/flow/global`.
 */
export function createGetFlowTool(options: GetFlowOptions): ToolDefinition {
  const tabIndex = new TabIndex(options.eachNode, options.deployGeneration);
  const admin = new AdminClient({
    adminBaseUrl: options.adminBaseUrl,
    token: options.token,
    ...(options.adminTimeoutMs !== undefined ? { timeoutMs: options.adminTimeoutMs } : {}),
    ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
  });
  const inputSchema = structuredClone(GET_FLOW_INPUT_SCHEMA) as Record<string, unknown>;
  const outputSchema = structuredClone(GET_FLOW_OUTPUT_SCHEMA) as Record<string, unknown>;
  const title = 'Inspect Node-RED flows';
  const listing: Tool = {
    name: GET_FLOW_TOOL_NAME,
    title,
    description: DESCRIPTION,
    inputSchema: inputSchema as Tool['inputSchema'],
    outputSchema: outputSchema as Tool['outputSchema'],
    annotations: { title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };

  const runInProcess = async (args: Record<string, unknown>, signal: AbortSignal): Promise<InProcessResult> => {
    const inspection = new Inspection();
    let mode: GetFlowMode | undefined = GET_FLOW_MODES.find((known) => known === args.mode);
    try {
      const resolved = resolveArguments(args);
      mode = resolved.mode;
      const sources = new FlowSources(admin, tabIndex, inspection, signal);
      const answer = await HANDLERS[resolved.mode]({ args: resolved, inspection, sources, scope: { inspection, findings: inspection.findings } });
      const structuredContent = assemble(resolved, answer, inspection);
      const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
      return telemetry(result, mode, inspection);
    } catch (error) {
      // Only our own errors carry text meant for the caller; anything else could hold internals.
      const text = isPaletteError(error) ? `get_flow: ${error.message}` : 'get_flow failed unexpectedly.';
      return telemetry(toolError(text), mode, inspection);
    }
  };

  return Object.freeze({
    name: GET_FLOW_TOOL_NAME,
    // Built in: the node file adds it to the Admin Endpoint Path's catalog directly, so it is
    // never bound by path through the registry (and never shared).
    binding: Object.freeze({ shared: false as const, path: '' }),
    // One admin read's limit plus slack, so a slow admin API reports itself before the tool times out.
    timeoutMs: Math.max(GET_FLOW_LIMITS.toolTimeoutMs, (options.adminTimeoutMs ?? 0) + 5_000),
    listing,
    outputSchema,
    checkArguments: compileSchema(inputSchema),
    checkStructuredContent: compileSchema(outputSchema),
    runInProcess,
    // A call its schema refused still counts under the mode it asked for, when that mode exists.
    modeOfRefused: (args: unknown) => (isPlainObject(args) ? GET_FLOW_MODES.find((known) => known === args.mode) : undefined),
  });
}

function assemble(args: GetFlowArguments, answer: ModeAnswer, inspection: Inspection): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    source: args.mode === 'tabs' ? 'runtime-index' : 'admin-api',
    reads: inspection.reads,
    ...(inspection.cached !== undefined ? { cached: inspection.cached } : {}),
    scannedNodes: inspection.scannedNodes,
    returnedNodes: inspection.returnedNodes || countReturned(answer),
    truncated: inspection.truncated,
    offset: args.offset,
    ...(answer.total !== undefined ? { total: answer.total } : {}),
    ...(answer.nextOffset !== undefined ? { nextOffset: answer.nextOffset } : {}),
    ...(inspection.wireVisits > 0 ? { wireVisits: inspection.wireVisits } : {}),
  };
  const content: Record<string, unknown> = {
    mode: args.mode,
    ...answer.fields,
    meta,
    redactedProperties: inspection.findings.redacted,
    omittedProperties: inspection.findings.omitted,
  };
  if (args.includeConfig) {
    content.configRedactedProperties = inspection.configFindings.redacted;
    content.configOmittedProperties = inspection.configFindings.omitted;
  }
  return content;
}

/** Modes that list entries other than nodes (tabs, subflows) report how many they returned. */
function countReturned(answer: ModeAnswer): number {
  const list = answer.fields.tabs ?? answer.fields.subflows;
  return Array.isArray(list) ? list.length : 0;
}

function telemetry(result: CallToolResult, mode: GetFlowMode | undefined, inspection: Inspection): InProcessResult {
  return {
    result,
    ...(mode !== undefined ? { mode } : {}),
    scannedNodes: inspection.scannedNodes,
    ...(inspection.cached !== undefined ? { cached: inspection.cached } : {}),
  };
}
