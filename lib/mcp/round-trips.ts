import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import type { RoundInput } from '../execution/broker.js';
import type { InputAsk, InputKind, InputRequest } from '../input/input-requests.js';
import type { RequestStateSealer, StateBinding } from '../input/request-state.js';
import { isPlainObject } from './json-schema.js';

/** How a 2026-07-28 retry begins: the flow's next round, or the same questions asked again. */
export type Resumption = { readonly input?: RoundInput } | { readonly reask: InputAsk; readonly round: number; readonly answered: Record<string, unknown> };

/**
 * Reads a 2026-07-28 retry (`inputResponses`, `requestState`) of a multi round-trip call. A state is
 * opened and checked against its binding; a broken, foreign or expired one is refused with the
 * error the specification names (-32602). When the state says what was asked and some answers are
 * missing, the missing questions are asked again without disturbing the flow, and answers to
 * anything it did not ask are left out. Answers sent without a state (SEP-2322 lets a client answer
 * up front) reach the flow as round 0: no question went out, and the client, who answers every
 * question anyway, gains nothing by it. A plain first call costs two property reads.
 */
export function resumptionOf(handlerCtx: ServerContext, sealer: RequestStateSealer, binding: StateBinding): Resumption {
  const request = handlerCtx.mcpReq as ServerContext['mcpReq'] & { inputResponses?: Record<string, unknown> };
  const sealed: unknown = request.requestState?.();
  const responses = request.inputResponses;
  if (sealed === undefined) return responses === undefined ? {} : { input: { round: 0, inputResponses: responses } };
  const opened = typeof sealed === 'string' ? sealer.open(sealed, binding) : ({ ok: false } as const);
  if (!opened.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState: call again without it to start over.', { reason: 'invalid_request_state' });
  const { round, state, requests, answers } = opened.value;
  // A retry answers only what it was asked last; what an earlier retry of this round answered travels in the state.
  const answered: Record<string, unknown> = { ...answers };
  const missing: Record<string, InputRequest> = {};
  for (const [key, question] of Object.entries(requests)) {
    if (responses !== undefined && isPlainObject(responses[key])) answered[key] = responses[key];
    else missing[key] = question;
  }
  if (Object.keys(missing).length > 0) return { reask: { requests: missing, ...(state !== undefined ? { state } : {}) }, round, answered };
  return { input: { round, inputResponses: answered, ...(state !== undefined ? { state } : {}) } };
}

/** The 2026-07-28 answer of a call whose flow asked: the questions and the sealed state to send back. */
export function inputRequiredResult(ask: InputAsk, round: number, sealer: RequestStateSealer, binding: StateBinding, answered?: Record<string, unknown>): Record<string, unknown> {
  const kept = answered !== undefined && Object.keys(answered).length > 0 ? { answers: answered } : {};
  const requestState = sealer.seal({ round, requests: ask.requests, ...(ask.state !== undefined ? { state: ask.state } : {}), ...kept }, binding);
  return { resultType: 'input_required', inputRequests: ask.requests, requestState };
}

/** What a 2026-07-28 request's envelope says its client can be asked; undefined on the 2025 revisions. */
export function declaredClientCapabilities(handlerCtx: ServerContext): Record<string, unknown> | undefined {
  const envelope = handlerCtx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return isPlainObject(declared) ? declared : envelope ? {} : undefined;
}

/** Whether a declared capability object covers one kind of question. */
export function canTake(declared: Record<string, unknown>, kind: InputKind): boolean {
  return isPlainObject(declared[kind]);
}
