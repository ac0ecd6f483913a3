import { randomFillSync } from 'node:crypto';
import type { CancelReason } from './cancellation.js';
import type { InputAsk, InputRefusal } from '../input/input-requests.js';
import type { HangUpSignal } from '../core/hang-up.js';
import type { Mutable } from '../core/mutable.js';

/** What the flow is asked to do; the node turns it into an `mcp-tool-execute` message. */
export interface ExecutionRequest {
  readonly executionId: string;
  readonly toolName: string;
  readonly arguments: Record<string, unknown>;
  /** Whether the client will see the flow's progress reports. */
  readonly progressToken?: boolean;
  /** The lowest level of log line the client will see; absent when it sees none. */
  readonly logLevel?: string;
  /** Set on a call the flow asked the client about: the round's answers and the flow's state. */
  readonly input?: RoundInput;
  /** For tools that ask the client: what a 2026-07-28 client declared it can be asked. */
  readonly clientCapabilities?: Record<string, unknown>;
}

/** What a flow gets back after it asked (`mcp-tool-input`): answers keyed as it asked, or a refusal. */
export interface RoundInput {
  /** How many rounds the flow has asked so far in this call. */
  readonly round: number;
  /** Answers to the questions the palette sent for this call, each checked against its question. */
  readonly inputResponses?: Record<string, unknown>;
  /** Round 0 only: answers a 2026-07-28 client sent without being asked (no requestState). */
  readonly unaskedResponses?: Record<string, unknown>;
  readonly state?: unknown;
  readonly inputError?: InputRefusal;
}

/** How a pending call ended. Only `answered` came from the flow. */
export type ExecutionOutcome =
  | { readonly kind: 'answered'; readonly result?: unknown; readonly error?: unknown }
  /** The flow asked the client for something (`mcp-tool-input`) instead of answering, in the round `executionId`. */
  | { readonly kind: 'input'; readonly ask: InputAsk; readonly executionId: string }
  /** `total` is set when the call hit its maximum total duration rather than its time limit. */
  | { readonly kind: 'timeout'; readonly timeoutMs: number; readonly total?: true; /** The client, asked by the flow, did not answer in time. */ readonly client?: true }
  | { readonly kind: 'stopped'; readonly reason: string }
  /** `byClient` is set when the client cancelled the call; without it, the client hung up. */
  | { readonly kind: 'cancelled'; readonly byClient?: true };

export interface BeginOptions<C, S = never> {
  /** The call's id when the caller chose it first (a task records it before the flow starts). */
  readonly executionId?: string;
  readonly toolName: string;
  readonly arguments: Record<string, unknown>;
  /** How long the flow may stay silent: counted from the start, and again from each progress. */
  readonly timeoutMs: number;
  /** The hard bound progress cannot extend past; the time limit alone when absent. */
  readonly maxTotalMs?: number;
  /** Aborts when the client goes away; the slot is released and a late answer is dropped. */
  readonly signal?: HangUpSignal;
  /** Travels with the request to `dispatch` (who is calling, which protocol revision, ...). */
  readonly context: C;
  /** The call's channel back to its client (progress, log lines), for calls that have one. */
  readonly stream?: S;
  /** Passed on to the flow with the request (see ExecutionRequest). */
  readonly progressToken?: boolean;
  readonly logLevel?: string;
  readonly input?: RoundInput;
  readonly clientCapabilities?: Record<string, unknown>;
}

export type SettleResult = 'settled' | 'unknown';

/** What a progress report for one call amounts to. */
export type ProgressCheck<S> =
  | { readonly status: 'accepted'; readonly stream: S | undefined }
  | { readonly status: 'unknown' }
  | { readonly status: 'not_increasing'; readonly last: number };

/** A pending call as others may see it: who made it and its channel back, if any. */
export interface PendingView<C, S> {
  readonly context: C;
  readonly stream: S | undefined;
}

interface PendingCall<C, S> extends PendingView<C, S> {
  readonly resolve: (outcome: ExecutionOutcome) => void;
  timer: NodeJS.Timeout;
  readonly signal: HangUpSignal | undefined;
  readonly onAbort: (() => void) | undefined;
  readonly startedAt: number;
  readonly timeoutMs: number;
  readonly maxTotalMs: number;
  /** Set once the deadline is the maximum total duration: progress no longer moves it. */
  capped: boolean;
  lastProgress: number;
}

export class CapacityError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`too many tool calls in flight (limit ${limit})`);
    this.name = 'CapacityError';
    this.limit = limit;
  }
}

export interface BrokerOptions<C> {
  readonly maxInFlight: number;
  readonly dispatch: (request: ExecutionRequest, context: C) => void;
  /**
   * Told once for each call that reached the flow and ended without its answer (cancelled, hung up,
   * timed out, stopped), so the flow can stop working on it. One callback for the endpoint, never a
   * listener per call. Must not throw.
   */
  readonly onAbandoned?: (executionId: string, reason: CancelReason, context: C) => void;
}

/**
 * Correlates tool calls with the flow's answers for one endpoint: one map from executionId to the
 * pending call, one timer each, and a hard cap on calls in flight. Every pending call ends exactly
 * once — answered, timed out, cancelled or stopped — and the map entry goes with it.
 */
export class ExecutionBroker<C, S = never> {
  private readonly pending = new Map<string, PendingCall<C, S>>();
  private readonly maxInFlight: number;
  private readonly dispatch: (request: ExecutionRequest, context: C) => void;
  private readonly onAbandoned: BrokerOptions<C>['onAbandoned'];
  /** Set by stopAll: the endpoint is going away, so nothing new may reach the flow. */
  private stoppedReason: string | undefined;

  constructor(options: BrokerOptions<C>) {
    this.maxInFlight = options.maxInFlight;
    this.dispatch = options.dispatch;
    this.onAbandoned = options.onAbandoned;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Sends the call to the flow and resolves when it ends. Throws CapacityError synchronously when
   * the endpoint is full, before anything reaches the flow.
   */
  begin(options: BeginOptions<C, S>): Promise<ExecutionOutcome> {
    if (this.pending.size >= this.maxInFlight) throw new CapacityError(this.maxInFlight);
    if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
    // A call that arrives while the endpoint stops would otherwise run in a flow that is being torn
    // down, and its client, told to retry, could run a tool with side effects twice.
    if (this.stoppedReason !== undefined) return Promise.resolve({ kind: 'stopped', reason: this.stoppedReason });
    const executionId = options.executionId ?? newExecutionId();
    const { timeoutMs, signal, context, stream } = options;
    const maxTotalMs = Math.max(options.maxTotalMs ?? timeoutMs, timeoutMs);
    // Built before the promise, so that no closure below keeps `options` for as long as the call waits.
    // Optional members are assigned, not spread from temporary objects: this runs for every call.
    const request: Mutable<ExecutionRequest> = { executionId, toolName: options.toolName, arguments: options.arguments, progressToken: options.progressToken ?? false };
    if (options.logLevel !== undefined) request.logLevel = options.logLevel;
    if (options.input !== undefined) request.input = options.input;
    if (options.clientCapabilities !== undefined) request.clientCapabilities = options.clientCapabilities;
    return new Promise<ExecutionOutcome>((resolve) => {
      const timer = setTimeout(() => this.finish(executionId, { kind: 'timeout', timeoutMs }), timeoutMs);
      const onAbort = signal ? () => this.finish(executionId, { kind: 'cancelled' }) : undefined;
      if (onAbort) signal!.addEventListener('abort', onAbort, { once: true });
      this.pending.set(executionId, {
        resolve,
        timer,
        signal,
        onAbort,
        context,
        stream,
        startedAt: Date.now(),
        timeoutMs,
        maxTotalMs,
        capped: maxTotalMs === timeoutMs,
        lastProgress: -Infinity,
      });
      try {
        this.dispatch(request, context);
      } catch (error) {
        // The flow could not even be started (the node threw while sending); end the call now.
        this.finish(executionId, { kind: 'answered', error });
      }
    });
  }

  /** The flow's answer. 'unknown' means nothing was waiting (late, duplicate or made up). */
  settle(executionId: string, answer: { result?: unknown; error?: unknown }): SettleResult {
    return this.finish(executionId, { kind: 'answered', ...answer }) ? 'settled' : 'unknown';
  }

  /** The flow asks the client instead of answering: this round ends here, and is not abandoned. */
  ask(executionId: string, ask: InputAsk): SettleResult {
    return this.finish(executionId, { kind: 'input', ask, executionId }) ? 'settled' : 'unknown';
  }

  /**
   * The flow reports progress: it must exceed the last report. Accepted progress restarts the
   * call's time limit, up to its maximum total duration.
   */
  progress(executionId: string, progress: number): ProgressCheck<S> {
    const call = this.pending.get(executionId);
    if (!call) return { status: 'unknown' };
    if (!(progress > call.lastProgress)) return { status: 'not_increasing', last: call.lastProgress };
    call.lastProgress = progress;
    if (!call.capped) this.extendDeadline(executionId, call);
    return { status: 'accepted', stream: call.stream };
  }

  /** The pending call with this id, or undefined when nothing waits for it. */
  find(executionId: string): PendingView<C, S> | undefined {
    return this.pending.get(executionId);
  }

  /**
   * The ids of pending calls whose context matches: a linear scan, so that no call pays for an
   * index that only the rare cancellation would use.
   */
  findWhere(match: (context: C) => boolean): string[] {
    const ids: string[] = [];
    for (const [id, call] of this.pending) if (match(call.context)) ids.push(id);
    return ids;
  }

  /** The client cancelled the call. False when it had already ended. */
  cancel(executionId: string): boolean {
    return this.finish(executionId, { kind: 'cancelled', byClient: true });
  }

  /** Ends every pending call and refuses new ones, e.g. when the endpoint stops or is redeployed. */
  stopAll(reason: string): number {
    this.stoppedReason = reason;
    const ids = [...this.pending.keys()];
    for (const id of ids) this.finish(id, { kind: 'stopped', reason });
    return ids.length;
  }

  private extendDeadline(executionId: string, call: PendingCall<C, S>): void {
    const totalLeft = call.startedAt + call.maxTotalMs - Date.now();
    clearTimeout(call.timer);
    if (totalLeft > call.timeoutMs) {
      call.timer = setTimeout(() => this.finish(executionId, { kind: 'timeout', timeoutMs: call.timeoutMs }), call.timeoutMs);
      return;
    }
    call.capped = true;
    call.timer = setTimeout(() => this.finish(executionId, { kind: 'timeout', timeoutMs: call.maxTotalMs, total: true }), Math.max(0, totalLeft));
  }

  private finish(executionId: string, outcome: ExecutionOutcome): boolean {
    const call = this.pending.get(executionId);
    if (!call) return false;
    this.pending.delete(executionId);
    clearTimeout(call.timer);
    if (call.onAbort) call.signal?.removeEventListener('abort', call.onAbort);
    call.resolve(outcome);
    const reason = cancelReasonOf(outcome);
    if (reason !== undefined) this.onAbandoned?.(executionId, reason, call.context);
    return true;
  }
}

/** Which outcomes left the flow without its answer, and what `mcp-tool-cancel` tells it then. */
function cancelReasonOf(outcome: ExecutionOutcome): CancelReason | undefined {
  switch (outcome.kind) {
    case 'answered':
    case 'input':
      return undefined;
    case 'cancelled':
      return outcome.byClient ? 'cancelled' : 'disconnected';
    case 'timeout':
      return 'timeout';
    case 'stopped':
      return 'stopped';
  }
}

/** Random bytes drawn 256 ids at a time: one system call per 256 calls instead of one per call. */
const ID_BYTES = 16;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idOffset = idPool.length;

/**
 * An unguessable id for one call, as one flat string: 32 hex digits of 128 random bits.
 * `crypto.randomUUID()` assembles its text from about twenty concatenations, and V8 keeps that rope
 * for as long as the id lives — about 430 bytes more per pending call, measured.
 */
function newExecutionId(): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const id = idPool.toString('hex', idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return id;
}
