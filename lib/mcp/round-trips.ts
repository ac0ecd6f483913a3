import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import type { RoundInput } from '../execution/broker.js';
import { firstAnswerProblem, unaskedAnswerProblem } from '../input/answer-checks.js';
import type { InputAsk, InputKind, InputRequest } from '../input/input-requests.js';
import type { OpenedState, RequestStateSealer, StateBinding } from '../input/request-state.js';
import type { UsedStates } from '../input/used-states.js';
import { isStorageUnavailable } from '../storage/store.js';
import { SERVER_BUSY } from './json-rpc-codes.js';
import { isPlainObject } from './json-schema.js';

/** How an endpoint seals the state of calls that ask, and remembers which states were used. */
export interface RoundTripStates {
  readonly sealer: RequestStateSealer;
  readonly used: UsedStates;
}

/**
 * How a 2026-07-28 retry begins: the flow's next round, or the same questions asked again. `release`
 * gives the state it used up back, for a round the server was too busy to start (giveBackIfBusy).
 */
export type Resumption =
  | { readonly input?: RoundInput; readonly release?: () => Promise<void> }
  | { readonly reask: InputAsk; readonly round: number; readonly answered: Record<string, unknown> };

/**
 * Reads a 2026-07-28 retry (`inputResponses`, `requestState`) of a multi round-trip call, and refuses
 * with -32602, before any flow runs, a state that is broken, foreign or expired, sealed for other
 * arguments (a flow that checked the first round's arguments must not act on others), or used
 * already (each state is good for one retry, on any instance), and an answer that does not fit its
 * question. When some answers are missing, the missing questions are asked again without disturbing
 * the flow; answers to anything it did not ask are left out.
 *
 * Answers sent without a state (SEP-2322 lets a client answer up front) answer no question the
 * palette sent, so they never become `inputResponses`: the flow's round 0 gets them apart, as
 * `unaskedResponses`, and a flow that does not read them behaves as if none came. A plain first
 * call costs two property reads.
 */
export async function resumeRound(handlerCtx: ServerContext, states: RoundTripStates, binding: StateBinding | (() => StateBinding)): Promise<Resumption> {
  const request = handlerCtx.mcpReq as ServerContext['mcpReq'] & { inputResponses?: Record<string, unknown> };
  const sealed: unknown = request.requestState?.();
  const responses = request.inputResponses;
  if (sealed === undefined) return responses === undefined || Object.keys(responses).length === 0 ? {} : { input: { round: 0, unaskedResponses: checkedUnasked(responses) } };
  // The binding (a digest of the arguments) is worked out only for a retry that carries a state.
  const opened: OpenedState = typeof sealed === 'string' ? states.sealer.open(sealed, typeof binding === 'function' ? binding() : binding) : { ok: false, reason: 'malformed' };
  if (!opened.ok) throw refusedState(opened.reason);
  const { round, state, requests, answers } = opened.value;
  // A retry answers only what it was asked last; what an earlier retry of this round answered travels in the state.
  const answered: Record<string, unknown> = { ...answers };
  const missing: Record<string, InputRequest> = {};
  for (const [key, question] of Object.entries(requests)) {
    if (responses !== undefined && isPlainObject(responses[key])) answered[key] = responses[key];
    else missing[key] = question;
  }
  refuseInvalidAnswers(requests, answered);
  // Last, after every check: a retry refused for a mistake the client can fix keeps its state.
  await claim(states.used, sealed as string, opened.expiresAt);
  if (Object.keys(missing).length > 0) return { reask: { requests: missing, ...(state !== undefined ? { state } : {}) }, round, answered };
  return { input: { round, inputResponses: answered, ...(state !== undefined ? { state } : {}) }, release: () => states.used.release(sealed as string) };
}

/**
 * For the round a retry starts: when the server is too busy to start it (-32000), the state the
 * retry used up is given back before the error goes to the client, whose "retry shortly" then works
 * with the same state. A round that started keeps its state used.
 */
export function giveBackIfBusy(release: (() => Promise<void>) | undefined): (error: unknown) => Promise<never> {
  return async (error) => {
    if (release && error instanceof ProtocolError && error.code === SERVER_BUSY) await release().catch(() => undefined);
    throw error;
  };
}

/** -32602 naming the first answer that does not fit the question it answers (a retry, or a task's tasks/update). */
export function refuseInvalidAnswers(requests: Readonly<Record<string, InputRequest>>, answers: Readonly<Record<string, unknown>>): void {
  const invalid = firstAnswerProblem(requests, answers);
  if (!invalid) return;
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid inputResponses.${invalid.key}: ${invalid.problem}.`, { key: invalid.key, reason: 'invalid_input_response' });
}

/** The 2026-07-28 answer of a call whose flow asked: the questions and the sealed state to send back. */
export function inputRequiredResult(ask: InputAsk, round: number, states: RoundTripStates, binding: StateBinding, answered?: Record<string, unknown>): Record<string, unknown> {
  const kept = answered !== undefined && Object.keys(answered).length > 0 ? { answers: answered } : {};
  const requestState = states.sealer.seal({ round, requests: ask.requests, ...(ask.state !== undefined ? { state: ask.state } : {}), ...kept }, binding);
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

/** Unasked answers that are not even answers are refused (-32602), as the spec asks servers to validate them. */
function checkedUnasked(responses: Record<string, unknown>): Record<string, unknown> {
  for (const [key, answer] of Object.entries(responses)) {
    const problem = unaskedAnswerProblem(answer);
    if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid inputResponses.${key}: ${problem}.`, { key, reason: 'invalid_input_response' });
  }
  return responses;
}

async function claim(used: UsedStates, state: string, expiresAt: number): Promise<void> {
  let first: boolean;
  try {
    first = await used.claim(state, expiresAt);
  } catch (error) {
    // Fail closed, and keep the state: the same retry can succeed once the storage is back.
    if (isStorageUnavailable(error)) throw new ProtocolError(SERVER_BUSY, 'Storage temporarily unavailable: the requestState could not be checked; retry shortly with the same requestState.', { retryable: true });
    throw error;
  }
  if (!first) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This requestState has been used already: each is good for one retry. Call again without it to start over.', { reason: 'used_request_state' });
  }
}

function refusedState(reason: Exclude<OpenedState, { ok: true }>['reason']): ProtocolError {
  if (reason === 'other_arguments') {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, 'This requestState belongs to a call with other arguments: retry with the arguments of the first call, or call again without requestState to start over.', {
      reason: 'request_state_arguments',
    });
  }
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState: call again without it to start over.', { reason: 'invalid_request_state' });
}
