import { ProtocolError } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { callerKey } from '../../access/caller-key.js';
import type { Logger } from '../../core/logger.js';
import { CapacityError, ExecutionBroker, type BeginOptions, type ExecutionOutcome, type ExecutionRequest, type SettleResult } from '../../execution/broker.js';
import type { CancelReason } from '../../execution/cancellation.js';
import type { InputAsk } from '../../input/input-requests.js';
import type { CallStream, LogLine, ProgressReport } from '../call-stream.js';
import type { ContentCall } from '../content/content-types.js';
import { SERVER_BUSY } from '../json-rpc-codes.js';
import type { ToolDefinition } from '../tool-definition.js';
import type { CallFinish, EdgeRelay, ExecutionContext, FlowCallOptions, LogDelivery, ProgressDelivery } from './call-types.js';
import type { HangUpSignal } from '../../core/hang-up.js';

export interface FlowCallsOptions {
  readonly path: string;
  readonly maxInFlight: number;
  /** Tasks run on a broker of their own with this limit; undefined when the endpoint keeps no tasks. */
  readonly maxTasks?: number;
  readonly logger: Logger;
  /** Hands one call to the flow. Must not block; the answer comes back through `settle`. */
  readonly execute: (request: ExecutionRequest, context: ExecutionContext) => void;
  /** Told once when a call the flow is working on ends without its answer. */
  readonly onAbandoned?: (executionId: string, reason: CancelReason, context: ExecutionContext) => void;
  /** Hands one resource read, prompt or completion to the flow, like `execute`. */
  readonly executeContent?: (executionId: string, call: ContentCall) => void;
  readonly onContentAbandoned?: (executionId: string, reason: CancelReason, call: ContentCall) => void;
}

/**
 * Everything of an endpoint that is waiting for a flow, and the flow's way back to it: the broker of
 * calls, reads, prompts and completions (one concurrency cap, the same time limits), the broker of
 * tasks (their own cap, so hour-long jobs never take the slots of quick calls), and where a hub's
 * edge tools go. The flow-server node's messages (answers, questions, progress, log lines) and the
 * client's cancels reach pending work here, whichever path started it.
 */
export class FlowCalls {
  readonly broker: ExecutionBroker<ExecutionContext | ContentCall, CallStream>;
  readonly taskBroker: ExecutionBroker<ExecutionContext> | undefined;
  /** Set on a hub endpoint: where calls to edge tools go. */
  edges: EdgeRelay | undefined;

  constructor(private readonly options: FlowCallsOptions) {
    this.broker = new ExecutionBroker<ExecutionContext | ContentCall, CallStream>({
      maxInFlight: options.maxInFlight,
      // Reads, prompts and completions are told apart from tool calls by their `kind`, each with its own message.
      dispatch: (request, context) => {
        if (!('kind' in context)) return this.dispatchCall(request, context);
        if (context.relay) return this.relay().sendContent(request, context);
        if (!options.executeContent) throw new Error('this endpoint has no flow for resources and prompts');
        options.executeContent(request.executionId, context);
      },
      onAbandoned: (executionId, reason, context) => {
        if (!('kind' in context)) return this.abandonCall(executionId, reason, context);
        if (context.relay) this.edges?.withdraw(executionId, reason);
        else options.onContentAbandoned?.(executionId, reason, context);
      },
    });
    if (options.maxTasks !== undefined) {
      // A task of an edge tool runs here (its record in this endpoint's storage) and on the edge as a call.
      this.taskBroker = new ExecutionBroker<ExecutionContext>({
        maxInFlight: options.maxTasks,
        dispatch: (request, context) => this.dispatchCall(request, context),
        onAbandoned: (executionId, reason, context) => this.abandonCall(executionId, reason, context),
      });
    }
  }

  /** A tool call, or a task's round, goes to this endpoint's flow, or to the edge site of a relayed tool. */
  private dispatchCall(request: ExecutionRequest, context: ExecutionContext): void {
    if (!context.relay) return this.options.execute(request, context);
    this.relay().send(request, context.relay, context, context.protocolVersion);
  }

  private relay(): EdgeRelay {
    if (!this.edges) throw new Error('this endpoint relays to no edge sites');
    return this.edges;
  }

  /** A relayed call ran on an edge: that edge's flow is the one to tell. */
  private abandonCall(executionId: string, reason: CancelReason, context: ExecutionContext): void {
    if (context.relay) this.edges?.withdraw(executionId, reason);
    else this.options.onAbandoned?.(executionId, reason, context);
  }

  /**
   * Hands one round of a tool call to the flow; a full broker is reported as `busy` and answered
   * with SERVER_BUSY. Not an async function: a pending call holds one suspended frame fewer.
   */
  begin(tool: ToolDefinition, args: Record<string, unknown>, context: ExecutionContext, signal: HangUpSignal, finish: CallFinish, extra: FlowCallOptions = {}): Promise<ExecutionOutcome> {
    try {
      return this.broker.begin({ toolName: tool.name, arguments: args, timeoutMs: tool.timeoutMs, maxTotalMs: tool.maxDurationMs, signal, context, ...extra });
    } catch (error) {
      if (!(error instanceof CapacityError)) return Promise.reject(error);
      finish(tool, 'busy', undefined);
      return Promise.reject(new ProtocolError(SERVER_BUSY, `Server busy: ${error.limit} tool calls are already running on ${this.options.path}; retry shortly.`));
    }
  }

  /** Hands one read, prompt or completion to the flow, under the same cap and time limits as tool calls. */
  beginContent(call: ContentCall, timeoutMs: number, signal: HangUpSignal): Promise<ExecutionOutcome> {
    // Named, not spread: a spread into a literal with other members copies through V8's slow path.
    const { toolName, arguments: args } = brokerFieldsOf(call);
    return this.broker.begin({ toolName, arguments: args, timeoutMs, signal, context: call });
  }

  /** A call under an id chosen elsewhere (a hub's, for a call relayed to this edge). Throws CapacityError when full. */
  beginAs(options: BeginOptions<ExecutionContext, CallStream>): Promise<ExecutionOutcome> {
    return this.broker.begin(options);
  }

  /** A read, prompt or completion under a hub's id, relayed to this edge. Throws CapacityError when full. */
  beginContentAs(executionId: string, call: ContentCall, timeoutMs: number): Promise<ExecutionOutcome> {
    const { toolName, arguments: args } = brokerFieldsOf(call);
    return this.broker.begin({ toolName, arguments: args, executionId, timeoutMs, context: call });
  }

  /** The flow's answer for one call; 'unknown' when nothing waits for that executionId. */
  settle(executionId: string, answer: { result?: unknown; error?: unknown }): SettleResult {
    const settled = this.broker.settle(executionId, answer);
    return settled === 'unknown' && this.taskBroker ? this.taskBroker.settle(executionId, answer) : settled;
  }

  /** The flow asks the client instead of answering (`mcp-tool-input`); 'unknown' when nothing waits. */
  ask(executionId: string, ask: InputAsk): SettleResult {
    const asked = this.broker.ask(executionId, ask);
    return asked === 'unknown' && this.taskBroker ? this.taskBroker.ask(executionId, ask) : asked;
  }

  /**
   * The flow's progress for one call: it must increase; it restarts the call's time limit and reaches
   * the client when the client sent a progress token.
   */
  progress(executionId: string, report: ProgressReport): ProgressDelivery {
    let check: ReturnType<typeof this.broker.progress> = this.broker.progress(executionId, report.progress);
    // A task's progress keeps it alive like a call's; its client polls, so there is no stream to tell.
    if (check.status === 'unknown' && this.taskBroker) check = this.taskBroker.progress(executionId, report.progress) as typeof check;
    if (check.status !== 'accepted') return check.status;
    return check.stream?.progress(report) ? 'sent' : 'kept_alive';
  }

  /** A log line from the flow for one call, sent when the client asked for its level. */
  log(executionId: string, line: LogLine): LogDelivery {
    const call = this.broker.find(executionId);
    if (!call) return this.taskBroker?.find(executionId) ? 'filtered' : 'unknown';
    return call.stream?.log(line) ? 'sent' : 'filtered';
  }

  /**
   * A client's `notifications/cancelled`. Request ids are the client's own and stateless clients all
   * count from the same start, so the id is matched together with who sent it (callerKey): on OAuth
   * endpoints only the sign-in that started a call can cancel it. When the id still names more than
   * one call (Local access, two clients), nothing is cancelled rather than the wrong call.
   */
  cancelFor(caller: CallerIdentity, requestId: string | number): void {
    const key = callerKey(caller);
    const matches = this.broker.findWhere((pending) => {
      // A resource read or prompt carries its caller and request id one level down.
      const context = 'kind' in pending ? pending.context : pending;
      return context.requestId === requestId && callerKey(context) === key;
    });
    if (matches.length === 1) this.broker.cancel(matches[0]!);
    else if (matches.length > 1) this.options.logger.debug(`cancel for request ${String(requestId)} on ${this.options.path} ignored: it names ${matches.length} calls`);
  }

  /** A call ends now without the flow's answer (a hub withdrew it, a task was cancelled): the flow hears `cancelled`. */
  cancel(executionId: string): void {
    if (!this.broker.cancel(executionId)) this.taskBroker?.cancel(executionId);
  }

  /** An edge site went away: its pending calls and tasks end now with `message`, not at their time limits. */
  failRelayed(site: string, message: string): void {
    const failure = { result: { content: [{ type: 'text', text: message }], isError: true } };
    for (const id of this.broker.findWhere((context) => context.relay?.site === site)) {
      // A read, prompt or completion ends with a JSON-RPC error saying why; a tool call with a tool error.
      this.broker.settle(id, 'kind' in this.broker.find(id)!.context ? { error: message } : failure);
    }
    for (const id of this.taskBroker?.findWhere((context) => context.relay?.site === site) ?? []) this.taskBroker!.settle(id, failure);
  }

  /** Fails everything pending with `reason`; nothing new may start. How many calls and tasks it ended. */
  stopAll(reason: string): number {
    return this.broker.stopAll(reason) + (this.taskBroker?.stopAll(reason) ?? 0);
  }
}

/** The broker's name and arguments for a read, prompt or completion (what its log lines name). */
function brokerFieldsOf(call: ContentCall): { toolName: string; arguments: Record<string, unknown> } {
  switch (call.kind) {
    case 'resource-read':
      return { toolName: call.uri, arguments: call.variables };
    case 'prompt-get':
      return { toolName: call.name, arguments: call.arguments };
    case 'completion':
      return { toolName: call.ref.type === 'ref/prompt' ? call.ref.name : call.ref.uri, arguments: { [call.argument.name]: call.argument.value } };
  }
}
