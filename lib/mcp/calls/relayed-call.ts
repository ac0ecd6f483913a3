import type { CallerIdentity } from '../../access/access-policy.js';
import { DEFAULTS } from '../../core/defaults.js';
import type { Mutable } from '../../core/mutable.js';
import { CapacityError, type BeginOptions, type ExecutionOutcome, type RoundInput } from '../../execution/broker.js';
import type { ToolCatalog } from '../tool-catalog.js';
import { invalidArgumentsResult, resultFromOutcome, toolError } from '../tool-result.js';
import type { ExecutionContext } from './call-types.js';
import type { FlowCalls } from './flow-calls.js';
import type { RelayNotes, RelayReply } from '../../edge/edge-agent.js';
import { vouchedCaller } from '../../edge/edge-protocol.js';
import { CallStream, type LogLine, type ProgressReport } from '../call-stream.js';
import type { LogLevel } from '../log-levels.js';

/** How much longer an edge lets a relayed call, read or prompt run than the hub that relayed it waits. */
export const RELAY_GRACE_MS = 1_000;

/** One call a hub relayed to this edge (lib/edge/edge-agent.ts reads it off the site's channel). */
export interface RelayedCall {
  /** The hub's executionId: the edge's flow answers under it, and the hub's cancel names it. */
  readonly id: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly caller: CallerIdentity;
  /** The hub endpoint the call came through. */
  readonly hub: string;
  readonly protocolVersion: string;
  /** The hub's client sent a progress token (the flow is told, as for a local call). */
  readonly progress?: true;
  /** The lowest level of log line the hub's client asked for; absent: none is relayed. */
  readonly logLevel?: LogLevel;
  /** Where the flow's progress and log lines go: back to the hub (absent: nowhere, as in unit tests). */
  readonly notes?: RelayNotes;
  /** A later round of a call whose flow asked: the answers, as the hub checked them, and the flow's state. */
  readonly input?: RoundInput;
  readonly clientCapabilities?: Record<string, unknown>;
}

/**
 * Runs a relayed call on this edge endpoint: the same argument check, broker (concurrency cap, time
 * limit), flow and result checks as a local call. Resolves with the result to send back, the
 * questions the flow asked the client instead, or undefined when the hub withdrew the call (nobody
 * waits for it).
 */
export async function runRelayedCall(path: string, catalog: ToolCatalog, flowCalls: FlowCalls, call: RelayedCall): Promise<RelayReply | undefined> {
  const tool = catalog.find(call.tool);
  // A tool limited to groups is never offered to hubs (edge-agent.ts), so a call for one is as stale as a redeployed one.
  if (!tool || tool.runInProcess || tool.allowedGroups || tool.requiredScopes) return { result: toolError(`Tool "${call.tool}" is not offered by this edge any more (it was redeployed).`) };
  const problems = tool.checkArguments(call.arguments);
  if (problems.length > 0) return { result: invalidArgumentsResult(call.tool, problems) };
  const stream = call.notes ? relayStream(call.notes, call.logLevel) : undefined;
  let outcome: ExecutionOutcome;
  try {
    // A second more than the hub allows: the hub gives up first and withdraws the call, so the flow
    // hears `cancelled` (not a time-out of its own) and sends no answer the hub would drop.
    const timeoutMs = tool.timeoutMs + RELAY_GRACE_MS;
    const maxTotalMs = (tool.maxDurationMs ?? tool.timeoutMs) + RELAY_GRACE_MS;
    // Member by member, not spread from temporary objects: every relayed call builds these.
    const options: Mutable<BeginOptions<ExecutionContext, CallStream>> = { executionId: call.id, toolName: call.tool, arguments: call.arguments, timeoutMs, maxTotalMs, context: relayedContext(path, call) };
    if (stream) options.stream = stream;
    if (call.progress) options.progressToken = true;
    if (call.logLevel) options.logLevel = call.logLevel;
    if (call.input !== undefined) options.input = call.input;
    if (call.clientCapabilities !== undefined) options.clientCapabilities = call.clientCapabilities;
    outcome = await flowCalls.beginAs(options);
  } catch (error) {
    if (error instanceof CapacityError) return { result: toolError(`Server busy: ${error.limit} tool calls are already running on this edge; retry shortly.`) };
    throw error;
  }
  if (outcome.kind === 'cancelled') return undefined;
  // Tells the hub's client, before the result, how many notes were dropped (as a local call's stream does).
  await stream?.end();
  // The hub asks the client, checks the answers and sends them back as the next round: a new call here.
  if (outcome.kind === 'input') return { ask: outcome.ask };
  return { result: resultFromOutcome(tool, outcome, DEFAULTS.maxResultBytes) };
}

/**
 * The call's stream back to the hub. Progress always goes (whether or not the client sent a token,
 * it keeps the call alive on the hub, which applies the same time limits); log lines only at or
 * above the client's level. The hub puts the client's own progress token back on each report.
 */
function relayStream(notes: RelayNotes, logLevel: LogLevel | undefined): CallStream {
  const notify = (notification: { method: string; params?: Record<string, unknown> }): Promise<void> => {
    const { progressToken: _token, ...params } = notification.params ?? {};
    return notification.method === 'notifications/progress' ? notes.progress(params as unknown as ProgressReport) : notes.log(params as unknown as LogLine);
  };
  return new CallStream(notify as ConstructorParameters<typeof CallStream>[0], RELAYED_PROGRESS, logLevel, { maxBacklogBytes: DEFAULTS.maxCallStreamBacklogBytes });
}

/** A stand-in progress token on the edge: the client's own is the hub's to add. */
const RELAYED_PROGRESS = 'relayed';

/** What the edge's flow sees in `msg.mcp`: the caller as the hub vouched for it, never more. */
function relayedContext(path: string, call: RelayedCall): ExecutionContext {
  // The vouched caller is a new object: the rest goes onto it, in the order `msg.mcp` shows.
  const context = vouchedCaller(call.caller) as Mutable<ExecutionContext>;
  context.endpoint = path;
  context.tool = call.tool;
  context.protocolVersion = call.protocolVersion;
  context.requestId = call.id;
  context.relayedFrom = call.hub;
  return context;
}
