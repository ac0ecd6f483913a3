import { ProtocolError, ProtocolErrorCode, type CallToolRequest, type CallToolResult, type RequestId, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { callerAdmitted } from '../../access/allowed-groups.js';
import { callerKey } from '../../access/caller-key.js';
import { DEFAULTS } from '../../core/defaults.js';
import type { ExecutionOutcome, RoundInput } from '../../execution/broker.js';
import { argumentsDigest } from '../../input/arguments-digest.js';
import type { InputAsk, InputKind } from '../../input/input-requests.js';
import { continueRounds, MAX_INPUT_ROUNDS, NOTHING_DECLARED, type AskDecision } from '../../input/input-rounds.js';
import type { StateBinding } from '../../input/request-state.js';
import { openCallStream } from '../call-stream.js';
import { exchangeOf } from '../exchange.js';
import type { LegacyExchangeHub } from '../legacy-exchange-hub.js';
import { protocolVersionOf } from '../protocol-version.js';
import { clampResult } from '../result-clamp.js';
import { canTake, declaredClientCapabilities, giveBackIfBusy, inputRequiredResult, resumeRound, type RoundTripStates } from '../round-trips.js';
import type { Era } from '../task-handlers.js';
import type { ToolCatalog } from '../tool-catalog.js';
import type { InProcessResult, ToolDefinition } from '../tool-definition.js';
import { invalidArgumentsResult, resultFromOutcome, toolError } from '../tool-result.js';
import type { CallReporter } from './call-reporter.js';
import type { CallFinish } from './call-types.js';
import { executionContextOf, noStreamToAsk } from './direct-tool-call.js';
import type { FlowCalls } from './flow-calls.js';
import { askOnStream, refuseIncapableClient, type StreamAskingDependencies } from './tool-asking.js';
import { runsAsTask, startToolTask, type ToolTaskDependencies } from './tool-tasks.js';
import type { HangUpSignal } from '../../core/hang-up.js';

/** What a `tools/call` on the SDK's path needs of its endpoint (built once per endpoint). */
export interface SdkToolCallDependencies extends StreamAskingDependencies {
  readonly report: CallReporter;
  readonly flowCalls: FlowCalls;
  readonly roundStates: RoundTripStates;
  /** Undefined when the endpoint keeps no tasks. */
  readonly tasks: ToolTaskDependencies | undefined;
  /** Told how many progress reports and log lines a call dropped because its client did not read them. */
  readonly reportDropped: (count: number) => void;
}

/** One SDK server's handler of `tools/call`: which era it serves and how it names the client's request ids. */
export interface SdkToolCallSite {
  readonly server: Server;
  readonly era: Era;
  /** Maps the id the server saw back to the one the client sent (a 2025-era hub renumbers them). */
  readonly clientRequestId: (id: RequestId) => RequestId;
  /** The 2025-era hub whose call streams carry questions to the client; undefined on 2026-07-28. */
  readonly hub: LegacyExchangeHub | undefined;
}

/**
 * Every `tools/call` the direct path leaves to the SDK: in-process tools, tools that ask the client,
 * tasks, calls with a progress token or a log level, and every refusal (an unknown tool, arguments
 * that are not an object). The same checks, broker and answers as the direct path, plus the rounds
 * of a flow that asks and the call stream of one that reports progress.
 */
export async function callToolViaSdk(deps: SdkToolCallDependencies, site: SdkToolCallSite, catalog: ToolCatalog, request: CallToolRequest, handlerCtx: ServerContext): Promise<CallToolResult> {
  const { server, era } = site;
  const startedAt = performance.now();
  const exchange = exchangeOf(handlerCtx);
  const finish = deps.report(exchange?.caller ?? {}, exchange?.disconnected, startedAt);

  const name = request.params.name;
  const tool = catalog.find(name);
  if (!tool) {
    // A tool of an edge site that has just gone away: the model is told the site is offline, when
    // the caller may use that site's tools (else the name is as unknown as any other).
    const offline = deps.flowCalls.edges?.offline(name);
    if (offline && callerAdmitted(offline.allowedGroups, exchange?.caller ?? {})) return finish(undefined, 'error', toolError(offline.message), { tool: name, site: offline.site })!;
    // A protocol fault, not a tool failure: MCP and the official SDK answer it with -32602. A tool
    // the caller may not use gets the same answer; only telemetry and the audit log hear the refusal.
    if (catalog.withholds(name)) finish(undefined, 'not_allowed', undefined, { tool: name });
    else finish(undefined, 'unknown_tool', undefined);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}". Call tools/list to see the tools this endpoint offers.`);
  }
  const args = request.params.arguments ?? {};
  // The SDK has already refused arguments that are not an object (InvalidParams).
  const problems = tool.checkArguments(args);
  if (problems.length > 0) {
    const mode = tool.modeOfRefused?.(args);
    return finish(tool, 'invalid_arguments', invalidArgumentsResult(name, problems), mode !== undefined ? { mode } : {})!;
  }
  // A stateless call ends with its connection: a hang-up is the only cancellation that reaches it,
  // and stopping the endpoint fails pending calls itself, so one signal is enough (no per-call
  // AbortSignal.any on the hot path).
  const signal = exchange?.disconnected ?? handlerCtx.mcpReq.signal;
  // An in-process tool (get_flow) fetches with it: the one place that needs a real AbortSignal.
  if (tool.runInProcess) return runInProcess(server, tool, tool.runInProcess, args, exchange?.disconnected.signal ?? handlerCtx.mcpReq.signal, exchange?.disconnected, finish);

  const declared = tool.showsView ? declaredClientCapabilities(handlerCtx) : undefined;
  const context = executionContextOf(exchange?.caller ?? {}, deps.path, tool, protocolVersionOf(handlerCtx), site.clientRequestId(handlerCtx.mcpReq.id), declared);
  // A tool that asks the client, on 2026-07-28: a client that cannot take what it must ask is
  // refused before the flow runs, and a retry carries the answers of the round before.
  let resumed: RoundInput | undefined;
  let binding: StateBinding | undefined;
  let release: (() => Promise<void>) | undefined;
  if (tool.asks && era === 'modern') {
    binding = { endpoint: deps.path, target: `tool:${name}`, caller: callerKey(exchange?.caller ?? {}), arguments: argumentsDigest(args) };
    if (tool.asksRequired) refuseIncapableClient(tool, tool.asks, handlerCtx, finish);
    const resumption = await resumeRound(handlerCtx, deps.roundStates, binding);
    if ('reask' in resumption) {
      const result = inputRequiredResult(resumption.reask, resumption.round, deps.roundStates, binding, resumption.answered) as unknown as CallToolResult;
      return finish(tool, 'input_required', result, { inputRounds: resumption.round })!;
    }
    resumed = resumption.input;
    release = resumption.release;
  }
  // What a 2026-07-28 client declared it can be asked (only looked up for tools that ask).
  const clientCapabilities = tool.asks ? declaredClientCapabilities(handlerCtx) : undefined;
  // A tool that asks before it becomes a task runs its first round as a plain call: its questions
  // come back as input_required, and the retry that brings the answers starts the task. Answers sent
  // unasked (round 0) are no retry: the call has not asked yet.
  const tasks = deps.tasks;
  if (tasks !== undefined && runsAsTask(tool, era, request, handlerCtx) && !(tool.asksBeforeTask && era === 'modern' && (resumed?.round ?? 0) === 0)) {
    return (await startToolTask(tasks, server, era, tool, args, context, exchange?.caller ?? {}, { first: resumed, clientCapabilities }, (outcome, result, bytes) => {
      finish(tool, outcome, undefined, { durationMs: performance.now() - startedAt, responseBytes: bytes });
      return result;
    }).catch(giveBackIfBusy(release))) as CallToolResult;
  }
  const stream = openCallStream(handlerCtx, exchange?.legacyLogLevel, exchange?.response, deps.reportDropped);
  // The last round that ran: telemetry counts the rounds of a call whose flow asked.
  let inputRounds: number | undefined;
  const begin = async (input: RoundInput | undefined): Promise<ExecutionOutcome> => {
    if (input !== undefined) inputRounds = input.round;
    return deps.flowCalls.begin(tool, args, context, signal, finish, {
      ...(stream ? { stream, progressToken: stream.progressToken !== undefined } : {}),
      ...(stream?.logLevel !== undefined ? { logLevel: stream.logLevel } : {}),
      ...(input !== undefined ? { input } : {}),
      ...(clientCapabilities !== undefined ? { clientCapabilities } : {}),
    });
  };
  let outcome = await begin(resumed).catch(giveBackIfBusy(release));
  if (outcome.kind === 'input') {
    // Only a flow that asked gets here: the loop, its checks and its closures cost plain calls nothing.
    const deliver = era === 'modern' ? async (ask: InputAsk): Promise<AskDecision> => ({ handOver: ask }) : askOnStream(deps, tool, context, exchange, handlerCtx, site.hub);
    const ended = await continueRounds(
      {
        begin,
        deliver,
        declared: tool.asks ?? NOTHING_DECLARED,
        ...(clientCapabilities !== undefined ? { clientCan: (kind: InputKind) => canTake(clientCapabilities, kind) } : {}),
        ...(era === 'legacy' && !exchange?.legacyStreamed ? { cannotAsk: noStreamToAsk(name) } : {}),
        maxRounds: MAX_INPUT_ROUNDS,
        what: `Tool "${name}"`,
      },
      outcome,
      resumed,
    );
    if (ended.kind === 'handOver') {
      await stream?.end();
      const result = inputRequiredResult(ended.ask, ended.round, deps.roundStates, binding!) as unknown as CallToolResult;
      return finish(tool, 'input_required', result, { inputRounds: ended.round })!;
    }
    outcome = ended;
    // A call that ended while its question was out still asked once.
    inputRounds = Math.max(inputRounds ?? 0, 1);
  }
  await stream?.end();
  const result = server.projectCallToolResult(resultFromOutcome(tool, outcome, DEFAULTS.maxResultBytes), tool.outputSchema);
  const status = outcome.kind === 'answered' ? (result.isError ? 'error' : 'success') : outcome.kind;
  return finish(tool, status, result, inputRounds !== undefined ? { inputRounds } : {})!;
}

/** An in-process tool (get_flow): run here, under the tool's time limit, ended by a hang-up like a flow's call. */
async function runInProcess(
  server: Server,
  tool: ToolDefinition,
  run: NonNullable<ToolDefinition['runInProcess']>,
  args: Record<string, unknown>,
  signal: AbortSignal,
  disconnected: HangUpSignal | undefined,
  finish: CallFinish,
): Promise<CallToolResult> {
  const answer: InProcessResult = await run(args, AbortSignal.any([signal, AbortSignal.timeout(tool.timeoutMs)])).catch(() => ({ result: toolError(`Tool "${tool.name}" failed unexpectedly.`) }));
  const projected = server.projectCallToolResult(clampResult(answer.result, DEFAULTS.maxResultBytes), tool.outputSchema);
  const extra = {
    ...(answer.mode !== undefined ? { mode: answer.mode } : {}),
    ...(answer.scannedNodes !== undefined ? { scannedNodes: answer.scannedNodes } : {}),
    ...(answer.cached !== undefined ? { cached: answer.cached } : {}),
  };
  // A hang-up ends an in-process tool as it ends a flow's call: cancelled, not failed.
  const outcome = disconnected?.aborted ? 'cancelled' : answer.result.isError ? 'error' : 'success';
  return finish(tool, outcome, projected, extra)!;
}
