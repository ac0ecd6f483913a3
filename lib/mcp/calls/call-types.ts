import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import type { BeginOptions, ExecutionRequest } from '../../execution/broker.js';
import type { CallStream } from '../call-stream.js';
import type { ToolDefinition } from '../tool-definition.js';
import type { ContentCall } from '../content/content-types.js';

// What every part of a tool call shares — the flow's view of a call, how a call ended, the hub's
// relay — below the endpoint and its parts, so that none of them imports another for a type.

/** What the flow-server node sends for each call, besides the payload. */
export interface ExecutionContext extends CallerIdentity {
  readonly endpoint: string;
  readonly tool: string;
  readonly protocolVersion: string;
  readonly requestId: string | number;
  /** For a tool that shows an MCP Apps view: whether the client declared it shows views (absent when the request does not say). */
  readonly ui?: boolean;
  /** Set when the call runs as a task: the id the client polls. */
  readonly taskId?: string;
  /** Set for a call relayed to an edge site (hub side): where it went. Never reaches a local flow. */
  readonly relay?: { readonly site: string; readonly tool: string };
  /** Set on an edge for a call a hub relayed: the hub endpoint it came through. */
  readonly relayedFrom?: string;
}

/** Where a hub endpoint sends the calls of edge tools (lib/edge/edge-hub.ts). */
export interface EdgeRelay {
  send(request: ExecutionRequest, target: { readonly site: string; readonly tool: string }, caller: CallerIdentity, protocolVersion: string): void;
  /** A read, prompt or completion of an edge's item (one with `relay`), under the same limits as a call. */
  sendContent(request: ExecutionRequest, call: ContentCall): void;
  withdraw(executionId: string, reason: string): void;
  /** A tool of a site that went away, and what its caller is told, while the hub remembers the site. */
  offline(toolName: string): { readonly site: string; readonly message: string; readonly allowedGroups?: readonly string[] } | undefined;
}

export type CallOutcome =
  | 'success'
  | 'error'
  | 'invalid_arguments'
  | 'unknown_tool'
  /** The caller's groups do not include one the tool allows; answered as an unknown tool. */
  | 'not_allowed'
  | 'busy'
  | 'timeout'
  | 'stopped'
  | 'cancelled'
  | 'unauthenticated'
  | 'forbidden'
  /** The caller's token lacks a scope the tool requires: answered with the step-up challenge (403). */
  | 'insufficient_scope'
  /** A 2026-07-28 call whose flow asked the client: the questions were its answer. */
  | 'input_required'
  /** Refused before the flow ran: the client cannot take what the tool must ask it (-32021). */
  | 'missing_capability';

export interface CallFinished {
  readonly endpoint: string;
  /** The tool name, or `unknown` for names the endpoint does not serve (bounded for metric labels). */
  readonly tool: string;
  readonly outcome: CallOutcome;
  readonly caller: CallerIdentity;
  readonly durationMs: number;
  /** Size of the JSON result sent back (0 when the call ended without a result). */
  readonly responseBytes: number;
  /** `flow` for a tool answered by a flow; an in-process tool's own mode (get_flow's); else `unknown`. */
  readonly mode: string;
  /** Set by in-process tools (get_flow): how many nodes it scanned, whether it used a cache. */
  readonly scannedNodes?: number;
  readonly cached?: boolean;
  /** How many times the flow asked the client during this call (2026-07-28: the rounds so far). */
  readonly inputRounds?: number;
  /** The edge site a relayed tool's call went to (hub side). */
  readonly site?: string;
}

/** Reports how one `tools/call` ended (telemetry, audit), once, and hands its result back. */
export type CallFinish = (
  tool: ToolDefinition | undefined,
  outcome: CallOutcome,
  result: CallToolResult | undefined,
  extra?: Partial<CallFinished>,
  /** The result's JSON when the caller has it already, so sizing it costs nothing more. */
  resultJson?: string,
) => CallToolResult | undefined;

/** What a round of a call may carry to the flow besides its arguments. */
export type FlowCallOptions = Pick<BeginOptions<ExecutionContext, CallStream>, 'stream' | 'progressToken' | 'logLevel' | 'input' | 'clientCapabilities'>;

/** What became of a progress report or log line from the flow. */
export type ProgressDelivery = 'sent' | 'kept_alive' | 'unknown' | 'not_increasing';
export type LogDelivery = 'sent' | 'filtered' | 'unknown';
