import type { ExecutionOutcome, RoundInput } from '../execution/broker.js';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { disallowed, type InputAsk, type InputKind, type InputRefusal } from './input-requests.js';

/** How often a flow may ask the client during one call, as the SDK's own default. */
export const MAX_INPUT_ROUNDS = 8;
/** For tools that declare nothing under "Asks the client". */
export const NOTHING_DECLARED: ReadonlySet<InputKind> = new Set();

/** What becomes of one `mcp-tool-input`: the flow's next round, the ask handed to the client as the call's answer, or how the call ended. */
export type AskDecision = { readonly next: RoundInput } | { readonly handOver: InputAsk } | { readonly ended: ExecutionOutcome };

export interface RoundsOptions {
  /** Runs one more round of the flow (a new `mcp-tool-execute`) and resolves with how it ended. */
  readonly begin: (input: RoundInput) => Promise<ExecutionOutcome>;
  /**
   * What the call does with an ask every check let through (send it on the stream, or hand it over).
   * `executionId` is the round that asked: a call that ends before its answers come tells the flow so
   * with `mcp-tool-cancel` for it.
   */
  readonly deliver: (ask: InputAsk, round: number, executionId: string) => Promise<AskDecision>;
  /** The kinds the tool declares it asks for: anything else is refused to the flow. */
  readonly declared: ReadonlySet<InputKind>;
  /** Whether the client can take a kind; undefined when the era does not say (2025: no session). */
  readonly clientCan?: (kind: InputKind) => boolean;
  /** Why this call cannot ask at all (a 2025-era exchange without a stream); undefined when it can. */
  readonly cannotAsk?: string;
  readonly maxRounds: number;
  /** What the target is called in messages to the flow (`Tool "x"`). */
  readonly what: string;
}

export type RoundsEnd = Exclude<ExecutionOutcome, { kind: 'input' }> | { readonly kind: 'handOver'; readonly ask: InputAsk; readonly round: number };

/**
 * Carries on a call whose flow asked (`mcp-tool-input`) instead of answering: each ask is checked —
 * declared by the tool, supported by the client — and either delivered or refused to the flow as a
 * new round carrying `inputError`, so a flow never waits on a question that was never sent. A call
 * whose flow asks more than `maxRounds` times (refused asks count) ends with an error. Resolves with the flow's answer, how the call ended, or an ask to hand to the
 * client. Only calls that asked come here: a plain call's first outcome is used as it is.
 */
export async function continueRounds(options: RoundsOptions, asked: Extract<ExecutionOutcome, { kind: 'input' }>, previous: RoundInput | undefined): Promise<RoundsEnd> {
  let outcome: ExecutionOutcome = asked;
  let input = previous;
  for (;;) {
    if (outcome.kind !== 'input') return outcome;
    const round = (input?.round ?? 0) + 1;
    // A flow that keeps asking (even after being told it cannot) would otherwise run round after round.
    if (round > options.maxRounds) {
      return { kind: 'answered', error: `${options.what} asked the client more than ${options.maxRounds} times in one call; it must answer with mcp-tool-response.` };
    }
    const refusal = refusalOf(options, outcome.ask);
    if (refusal) {
      input = { round, inputError: refusal, ...(outcome.ask.state !== undefined ? { state: outcome.ask.state } : {}) };
    } else {
      const decision = await options.deliver(outcome.ask, round, outcome.executionId);
      if ('ended' in decision) return decision.ended as RoundsEnd;
      if ('handOver' in decision) return { kind: 'handOver', ask: decision.handOver, round };
      input = decision.next;
    }
    outcome = await options.begin(input);
  }
}

function refusalOf(options: RoundsOptions, ask: InputAsk): InputRefusal | undefined {
  const keys = Object.keys(ask.requests);
  if (options.cannotAsk) return { code: -32603, message: options.cannotAsk, keys };
  const undeclared = disallowed(ask, (kind) => options.declared.has(kind));
  if (undeclared.keys.length > 0) {
    return {
      code: -32603,
      message: `${options.what} does not declare that it asks for ${undeclared.kinds.join(' and ')}: tick it under "Asks the client" in the tool's settings.`,
      keys: undeclared.keys,
    };
  }
  const clientCan = options.clientCan;
  const unsupported = clientCan ? disallowed(ask, clientCan) : undefined;
  if (unsupported && unsupported.keys.length > 0) {
    // The code of the protocol's own MissingRequiredClientCapabilityError, so the flow can tell it apart.
    return { code: ProtocolErrorCode.MissingRequiredClientCapability, message: `The client did not declare the ${unsupported.kinds.join(' and ')} capability, so it cannot be asked.`, keys: unsupported.keys };
  }
  return undefined;
}
