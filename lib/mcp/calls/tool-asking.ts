import { ProtocolError, ProtocolErrorCode, type JSONRPCMessage, type ServerContext } from '@modelcontextprotocol/server';
import { callerWithGroupsKey } from '../../access/caller-key.js';
import type { CancelReason } from '../../execution/cancellation.js';
import { requiredCapabilities, type InputAsk, type InputKind } from '../../input/input-requests.js';
import type { AskDecision } from '../../input/input-rounds.js';
import type { LegacyInputRelay } from '../../input/legacy-input-relay.js';
import type { Exchange } from '../exchange.js';
import { SERVER_BUSY } from '../json-rpc-codes.js';
import type { LegacyExchangeHub } from '../legacy-exchange-hub.js';
import { canTake, declaredClientCapabilities } from '../round-trips.js';
import type { ToolDefinition } from '../tool-definition.js';
import type { CallFinish, ExecutionContext } from './call-types.js';

// How a tool call's flow reaches the client when it asks: on a 2025-era call's own event stream,
// and the refusal of a 2026-07-28 client that cannot take what a tool must ask.

export interface StreamAskingDependencies {
  readonly path: string;
  /** Where a 2025-era client's answer crosses to the instance that asked (lib/input). */
  readonly relay: LegacyInputRelay;
  readonly onAbandoned?: (executionId: string, reason: CancelReason, context: ExecutionContext) => void;
}

/**
 * How a 2025-era call asks: each question goes out on the call's own event stream as a request of
 * the client, and the next round starts when every answer is in (from this instance or another).
 * A call whose answers never come ends at the tool's time limit, like one whose flow never answers.
 */
export function askOnStream(deps: StreamAskingDependencies, tool: ToolDefinition, context: ExecutionContext, exchange: Exchange | undefined, handlerCtx: ServerContext, hub: LegacyExchangeHub | undefined) {
  const hubId = handlerCtx.mcpReq.id;
  const signal = exchange?.disconnected ?? handlerCtx.mcpReq.signal;
  return async (ask: InputAsk, round: number, executionId: string): Promise<AskDecision> => {
    if (!hub) return { ended: { kind: 'stopped', reason: 'the endpoint has no stream to ask on' } };
    const asked = await deps.relay.ask(ask.requests, callerWithGroupsKey(exchange?.caller ?? {}), (message) => hub.sendRequest(hubId, message as JSONRPCMessage), signal, tool.timeoutMs);
    if ('full' in asked) {
      // Told to the flow like any question that could not be asked: it may answer without, or try later.
      const message = `Server busy: ${asked.full} calls on ${deps.path} are already waiting for their clients' answers; nothing was asked.`;
      return { next: { round, inputError: { code: SERVER_BUSY, message, keys: Object.keys(ask.requests) }, ...(ask.state !== undefined ? { state: ask.state } : {}) } };
    }
    if ('ended' in asked) {
      // The flow finished its round by asking; it still learns that the call it may be holding on to ended.
      deps.onAbandoned?.(executionId, asked.ended === 'cancelled' ? 'disconnected' : asked.ended, context);
      switch (asked.ended) {
        case 'timeout':
          return { ended: { kind: 'timeout', timeoutMs: tool.timeoutMs, client: true } };
        case 'cancelled':
          return { ended: { kind: 'cancelled' } };
        case 'stopped':
          return { ended: { kind: 'stopped', reason: 'the endpoint stopped while the client was being asked' } };
      }
    }
    return { next: { round, inputResponses: asked.answers, ...(ask.state !== undefined ? { state: ask.state } : {}) } };
  };
}

/** -32021 before the flow runs, for a 2026-07-28 client that cannot take what the tool must ask. */
export function refuseIncapableClient(tool: ToolDefinition, kinds: ReadonlySet<InputKind>, handlerCtx: ServerContext, finish: CallFinish): void {
  const declared = declaredClientCapabilities(handlerCtx) ?? {};
  const missing = [...kinds].filter((kind) => !canTake(declared, kind));
  if (missing.length === 0) return;
  finish(tool, 'missing_capability', undefined);
  throw new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `Missing required client capability: tool "${tool.name}" asks the client for ${missing.join(' and ')}, which this request does not declare.`, {
    requiredCapabilities: requiredCapabilities(missing),
  });
}
