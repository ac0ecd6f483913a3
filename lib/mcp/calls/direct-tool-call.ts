import type { ServerResponse } from 'node:http';
import { ProtocolError, type CallToolResult, type RequestId } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { callerFields } from '../../access/caller-fields.js';
import type { Mutable } from '../../core/mutable.js';
import { DEFAULTS } from '../../core/defaults.js';
import { clientShowsViews } from '../app-ui.js';
import type { ExecutionOutcome, RoundInput } from '../../execution/broker.js';
import { continueRounds, MAX_INPUT_ROUNDS, NOTHING_DECLARED, type AskDecision } from '../../input/input-rounds.js';
import type { LogLevel } from '../log-levels.js';
import { withServerInfo, type ServerIdentity } from '../modern-results.js';
import type { CallFinish, CallOutcome, ExecutionContext, FlowCallOptions } from './call-types.js';
import { writeJsonRpcError, writeJsonRpcResult } from '../json-rpc-answers.js';
import type { PlainToolCall } from '../plain-requests.js';
import { MODERN_PROTOCOL_VERSION } from '../protocol-version.js';
import type { ToolCatalog } from '../tool-catalog.js';
import type { ToolDefinition } from '../tool-definition.js';
import { invalidArgumentsResult, resultFromOutcome } from '../tool-result.js';
import type { HangUpSignal } from '../../core/hang-up.js';
import { CallStream, type CallStreamNotify } from '../call-stream.js';
import { EventStreamAnswer } from '../event-stream-answer.js';

/** The endpoint's parts a direct call uses: the same ones its SDK path uses. */
export interface DirectCallDependencies {
  /** The endpoint's path, as the flow sees it in `msg.mcp.endpoint`. */
  readonly path: string;
  readonly serverInfo: ServerIdentity;
  /** Starts the telemetry of one call. */
  report(caller: CallerIdentity, disconnected: HangUpSignal, startedAt: number): CallFinish;
  /** Hands one round to the flow through the endpoint's broker; a full broker throws SERVER_BUSY (reported as busy). */
  begin(tool: ToolDefinition, args: Record<string, unknown>, context: ExecutionContext, signal: HangUpSignal, finish: CallFinish, extra?: FlowCallOptions): Promise<ExecutionOutcome>;
  /** The SDK's 2025 wire projection of a tool result. */
  projectLegacy(result: CallToolResult, outputSchema: ToolDefinition['outputSchema']): CallToolResult;
  /** Told how many progress reports a call dropped because its client did not read them. */
  reportDropped(count: number): void;
}

/**
 * The flow tool a plain call may be served by directly: one the endpoint serves whose call can need
 * nothing only the SDK's path provides — no stream of questions or log lines (a tool that asks the
 * client gets one, and so does a 2025-era caller that chose a log level; a progress token is served
 * here), no task, no in-process tool, no
 * `Mcp-Param-*` headers to check. Undefined sends the call down the SDK's path, which also answers
 * every refusal (an unknown tool, a tool that runs only as a task).
 */
export function directlyServedTool(catalog: ToolCatalog, call: PlainToolCall, legacyLogLevel: LogLevel | undefined): ToolDefinition | undefined {
  const tool = catalog.find(call.name);
  if (!tool || tool.runInProcess || tool.asks) return undefined;
  if (call.revision === MODERN_PROTOCOL_VERSION) {
    // A task-capable tool becomes a task for a client that declares the tasks extension.
    return (tool.taskSupport ?? 'forbidden') === 'forbidden' && !tool.paramHeaders ? tool : undefined;
  }
  if (tool.taskSupport === 'required' || legacyLogLevel !== undefined) return undefined;
  return tool;
}

/**
 * Serves a plain `tools/call` without the SDK: the same checks as its path (arguments against the
 * tool's schema, the concurrency cap, the result's shape and output schema), the same telemetry and
 * the same answer, minus its per-request web Request, transport and server, its schema parsing of a
 * request already known to be well-formed, and its re-validation of a result built valid here. The
 * answer is one JSON body, as the SDK's transports write it; a call with a progress token gets the
 * SDK's framing for one (event-stream-answer.ts): on the 2025 revisions always an event stream, on
 * 2026-07-28 a stream only once the flow reports progress before its answer.
 */
export async function serveDirectCall(
  deps: DirectCallDependencies,
  call: PlainToolCall,
  tool: ToolDefinition,
  exchange: { readonly caller: CallerIdentity; readonly disconnected: HangUpSignal },
  res: ServerResponse,
): Promise<void> {
  const modern = call.revision === MODERN_PROTOCOL_VERSION;
  const finish = deps.report(exchange.caller, exchange.disconnected, performance.now());
  const answer = call.progressToken === undefined ? undefined : new EventStreamAnswer(res);
  // The SDK's 2025 transport answers every call with a progress token as a stream, from the start.
  if (answer && !modern) answer.open();
  const problems = tool.checkArguments(call.arguments);
  if (problems.length > 0) {
    const result = invalidArgumentsResult(tool.name, problems);
    const json = JSON.stringify(result);
    const mode = tool.modeOfRefused?.(call.arguments);
    finish(tool, 'invalid_arguments', result, mode !== undefined ? { mode } : {}, json);
    return writeAnswer(res, answer, call.id, modern, deps.serverInfo, result, json);
  }
  const context = executionContextOf(exchange.caller, deps.path, tool, call.revision, call.id, call.clientCapabilities);
  const stream = answer && progressStream(answer, call.progressToken!, res, deps.reportDropped);
  // Up to here nothing waits, so this frame ends: the parsed request and the exchange are not kept
  // for as long as the flow works (10 000 calls may wait at once), only what the answer needs.
  return answerWhenDone(deps, tool, call.arguments, context, exchange.disconnected, finish, res, call.id, modern, answer, stream);
}

/**
 * The call stream of a direct call with a progress token: the flow's progress reports become
 * `notifications/progress` events on the call's own answer, bounded as on the SDK's path (a client
 * that does not read them has them dropped and counted). Log lines are not asked for on this path.
 */
function progressStream(answer: EventStreamAnswer, token: string | number, res: ServerResponse, onDropped: (count: number) => void): CallStream {
  const notify: CallStreamNotify = (notification) => {
    answer.send(JSON.stringify({ jsonrpc: '2.0', ...notification }));
    return Promise.resolve();
  };
  return new CallStream(notify, token, undefined, { maxBacklogBytes: DEFAULTS.maxCallStreamBacklogBytes, response: res, onDropped });
}

async function answerWhenDone(
  deps: DirectCallDependencies,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  context: ExecutionContext,
  disconnected: HangUpSignal,
  finish: CallFinish,
  res: ServerResponse,
  id: RequestId,
  modern: boolean,
  answer: EventStreamAnswer | undefined,
  stream: CallStream | undefined,
): Promise<void> {
  let outcome: ExecutionOutcome;
  let inputRounds: number | undefined;
  const streamed = stream ? { stream, progressToken: true } : {};
  try {
    outcome = await deps.begin(tool, args, context, disconnected, finish, streamed);
    if (outcome.kind === 'input') {
      // Made only for the rare call whose flow asks.
      const begin = (input: RoundInput | undefined) => deps.begin(tool, args, context, disconnected, finish, input !== undefined ? { ...streamed, input } : streamed);
      // The tool declares no questions (and a 2025-era JSON answer is no stream to ask on): the
      // flow is told so, round after round, exactly as on the SDK's path.
      const cannotAsk = modern || answer ? {} : { cannotAsk: noStreamToAsk(tool.name) };
      const options = { begin, deliver: neverDelivered, declared: NOTHING_DECLARED, ...cannotAsk, maxRounds: MAX_INPUT_ROUNDS, what: `Tool "${tool.name}"` };
      outcome = (await continueRounds(options, outcome, undefined)) as ExecutionOutcome;
      inputRounds = 1;
    }
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    return answer ? answer.error(id, error) : writeJsonRpcError(res, id, error);
  }
  await stream?.end();
  const shaped = resultFromOutcome(tool, outcome, DEFAULTS.maxResultBytes);
  const result = modern ? projectModern(shaped) : deps.projectLegacy(shaped, tool.outputSchema);
  const json = JSON.stringify(result);
  const status = outcome.kind === 'answered' ? (result.isError ? 'error' : 'success') : outcome.kind;
  finish(tool, status as CallOutcome, result, inputRounds !== undefined ? { inputRounds } : {}, json);
  writeAnswer(res, answer, id, modern, deps.serverInfo, result, json);
}

/** The answer of a direct call, as JSON or as its stream's last event: the 2025 result as it is, the 2026-07-28 one completed. */
function writeAnswer(res: ServerResponse, answer: EventStreamAnswer | undefined, id: RequestId, modern: boolean, serverInfo: ServerIdentity, result: CallToolResult, json: string): void {
  const resultJson = modern ? JSON.stringify(completeModernResult(result, serverInfo)) : json;
  if (answer) answer.result(resultJson, id);
  else writeJsonRpcResult(res, resultJson, id);
}

/**
 * Who calls and what, as the flow sees it in `msg.mcp`; for a tool that shows a view, whether the
 * client shows views (`ui`), when the request says (2026-07-28 requests carry what the client declared).
 */
export function executionContextOf(
  caller: CallerIdentity,
  endpoint: string,
  tool: ToolDefinition,
  protocolVersion: string,
  requestId: RequestId,
  clientCapabilities?: Record<string, unknown>,
): ExecutionContext {
  // Member by member in this order (the order `msg.mcp` shows), not spread from temporary objects:
  // this runs for every call.
  const context: Mutable<ExecutionContext> = callerFields(caller) as Mutable<ExecutionContext>;
  if (caller.editor !== undefined) context.editor = caller.editor;
  context.endpoint = endpoint;
  context.tool = tool.name;
  context.protocolVersion = protocolVersion;
  context.requestId = requestId;
  const ui = tool.showsView ? clientShowsViews(clientCapabilities) : undefined;
  if (ui !== undefined) context.ui = ui;
  if (tool.relay) context.relay = tool.relay;
  return context;
}

/** What the flow learns when it asks on a 2025-era call that has no event stream to ask on. */
export function noStreamToAsk(toolName: string): string {
  return `Tool "${toolName}" cannot ask this client: its call has no event stream (the tool declares nothing under "Asks the client").`;
}

/** Never reached: a tool that declares no questions has every question refused before delivery. */
const neverDelivered = async (): Promise<AskDecision> => ({ ended: { kind: 'stopped', reason: 'the tool declares no questions' } });

/**
 * The SDK's 2026-07-28 wire projection of a tool result, which its SDK path applies to every result
 * (`projectCallToolResult` of the modern codec; the SDK does not export the codec): structured content
 * that is not an object, in a result without a text block, is added as its JSON text, so a client
 * that reads only `content` still gets it. The differential test (direct-tool-calls.test.ts) holds
 * both paths to the same answer.
 */
function projectModern(result: CallToolResult): CallToolResult {
  const structured = result.structuredContent as unknown;
  // The SDK's own test of "an object": any non-null, non-array object.
  if (structured === undefined || (typeof structured === 'object' && structured !== null && !Array.isArray(structured))) return result;
  if (result.content.some((block) => block.type === 'text')) return result;
  return { ...result, content: [...result.content, { type: 'text', text: JSON.stringify(structured) }] };
}

/**
 * A complete 2026-07-28 tool result as the SDK's encoder writes it: `resultType: "complete"`, and the
 * server's identity in `_meta` unless the result names one already.
 */
function completeModernResult(result: CallToolResult, serverInfo: ServerIdentity): Record<string, unknown> {
  return withServerInfo({ ...result, resultType: 'complete' }, serverInfo);
}
