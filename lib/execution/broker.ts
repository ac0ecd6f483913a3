import { randomBytes } from 'node:crypto';

/** What the flow is asked to do; the node turns it into an `mcp-tool-execute` message. */
export interface ExecutionRequest {
  readonly executionId: string;
  readonly toolName: string;
  readonly arguments: Record<string, unknown>;
}

/** How a pending call ended. Only `answered` came from the flow. */
export type ExecutionOutcome =
  | { readonly kind: 'answered'; readonly result?: unknown; readonly error?: unknown }
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  | { readonly kind: 'stopped'; readonly reason: string }
  | { readonly kind: 'cancelled' };

export interface BeginOptions<C> {
  readonly toolName: string;
  readonly arguments: Record<string, unknown>;
  readonly timeoutMs: number;
  /** Aborts when the client goes away; the slot is released and a late answer is dropped. */
  readonly signal?: AbortSignal;
  /** Travels with the request to `dispatch` (who is calling, which protocol revision, ...). */
  readonly context: C;
}

export type SettleResult = 'settled' | 'unknown';

interface PendingCall {
  readonly resolve: (outcome: ExecutionOutcome) => void;
  readonly timer: NodeJS.Timeout;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: (() => void) | undefined;
}

export class CapacityError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`too many tool calls in flight (limit ${limit})`);
    this.name = 'CapacityError';
    this.limit = limit;
  }
}

/**
 * Correlates tool calls with the flow's answers for one endpoint: one map from executionId to the
 * pending call, one timer each, and a hard cap on calls in flight. Every pending call ends exactly
 * once — answered, timed out, cancelled or stopped — and the map entry goes with it.
 */
export class ExecutionBroker<C> {
  private readonly pending = new Map<string, PendingCall>();
  private readonly maxInFlight: number;
  private readonly dispatch: (request: ExecutionRequest, context: C) => void;
  /** Set by stopAll: the endpoint is going away, so nothing new may reach the flow. */
  private stoppedReason: string | undefined;

  constructor(options: { maxInFlight: number; dispatch: (request: ExecutionRequest, context: C) => void }) {
    this.maxInFlight = options.maxInFlight;
    this.dispatch = options.dispatch;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Sends the call to the flow and resolves when it ends. Throws CapacityError synchronously when
   * the endpoint is full, before anything reaches the flow.
   */
  begin(options: BeginOptions<C>): Promise<ExecutionOutcome> {
    if (this.pending.size >= this.maxInFlight) throw new CapacityError(this.maxInFlight);
    if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
    // A call that arrives while the endpoint stops would otherwise run in a flow that is being torn
    // down, and its client, told to retry, could run a tool with side effects twice.
    if (this.stoppedReason !== undefined) return Promise.resolve({ kind: 'stopped', reason: this.stoppedReason });
    const executionId = newExecutionId();
    return new Promise<ExecutionOutcome>((resolve) => {
      const timer = setTimeout(() => this.finish(executionId, { kind: 'timeout', timeoutMs: options.timeoutMs }), options.timeoutMs);
      const onAbort = options.signal ? () => this.finish(executionId, { kind: 'cancelled' }) : undefined;
      if (onAbort) options.signal!.addEventListener('abort', onAbort, { once: true });
      this.pending.set(executionId, { resolve, timer, signal: options.signal, onAbort });
      try {
        this.dispatch({ executionId, toolName: options.toolName, arguments: options.arguments }, options.context);
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

  /** Ends every pending call and refuses new ones, e.g. when the endpoint stops or is redeployed. */
  stopAll(reason: string): number {
    this.stoppedReason = reason;
    const ids = [...this.pending.keys()];
    for (const id of ids) this.finish(id, { kind: 'stopped', reason });
    return ids.length;
  }

  private finish(executionId: string, outcome: ExecutionOutcome): boolean {
    const call = this.pending.get(executionId);
    if (!call) return false;
    this.pending.delete(executionId);
    clearTimeout(call.timer);
    if (call.onAbort) call.signal?.removeEventListener('abort', call.onAbort);
    call.resolve(outcome);
    return true;
  }
}

/**
 * An unguessable id for one call, as one flat string: 32 hex digits from 16 random bytes.
 * `crypto.randomUUID()` assembles its text from about twenty concatenations, and V8 keeps that rope
 * for as long as the id lives — about 430 bytes more per pending call, measured.
 */
function newExecutionId(): string {
  return randomBytes(16).toString('hex');
}
