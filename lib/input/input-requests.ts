import { isPlainObject } from '../core/is-plain-object.js';
import { requestedSchemaProblem } from './form-content-check.js';
import { elicitationSchemaProblem } from './elicitation-schema.js';

/** What a flow can ask the client for, each the name of a client capability. */
export type InputKind = 'elicitation' | 'sampling' | 'roots';
export const INPUT_KINDS: readonly InputKind[] = ['elicitation', 'sampling', 'roots'];

/** One request to the client, as both protocol eras spell it (a JSON-RPC method and its params). */
export interface InputRequest {
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  readonly params: Record<string, unknown>;
}

/** A flow's `mcp-tool-input`, checked: what to ask, keyed as the flow wants the answers keyed. */
export interface InputAsk {
  readonly requests: Readonly<Record<string, InputRequest>>;
  /** Whatever the flow wants back with the answers (JSON); travels sealed on 2026-07-28. */
  readonly state?: unknown;
}

/**
 * Told to the flow instead of answers when the palette could not ask: the tool does not declare that
 * kind, the client did not declare the capability, or the 2025-era exchange has no stream for it.
 */
export interface InputRefusal {
  readonly code: number;
  readonly message: string;
  /** The keys of the requests that were not sent. */
  readonly keys: readonly string[];
}


const METHOD_OF: Readonly<Record<InputKind, InputRequest['method']>> = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
};
const KIND_OF: Readonly<Record<string, InputKind>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};
/** Keys travel as JSON object keys to the client and back, and name answers in the flow. */
const KEY_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_REQUESTS = 16;

export function kindOf(request: InputRequest): InputKind {
  return KIND_OF[request.method]!;
}

export type ParsedAsk = { readonly ok: true; readonly executionId: string; readonly ask: InputAsk } | { readonly ok: false; readonly problem: string };

/**
 * Reads `msg.payload` of `mcp-tool-input`: `{ executionId, requests: { key: request }, state? }`, where
 * each request is `{ elicitation: { message, requestedSchema } }`, `{ sampling: { messages, maxTokens, ... } }`,
 * `{ roots: {} }`, or the protocol's own `{ method, params }`. Each problem is named, so the flow's
 * author sees which request and which field is wrong before anything reaches the client.
 */
export function parseInputPayload(payload: unknown): ParsedAsk {
  if (!isPlainObject(payload)) return { ok: false, problem: 'msg.payload must be an object' };
  const executionId = payload['executionId'];
  if (typeof executionId !== 'string' || executionId === '') return { ok: false, problem: 'msg.payload.executionId must be the executionId of the call' };
  const raw = payload['requests'];
  if (!isPlainObject(raw)) return { ok: false, problem: 'msg.payload.requests must be an object of requests keyed by name' };
  const keys = Object.keys(raw);
  if (keys.length === 0) return { ok: false, problem: 'msg.payload.requests is empty: ask for at least one thing' };
  if (keys.length > MAX_REQUESTS) return { ok: false, problem: `msg.payload.requests has ${keys.length} requests; at most ${MAX_REQUESTS} per round` };
  const requests: Record<string, InputRequest> = {};
  for (const key of keys) {
    if (!KEY_PATTERN.test(key)) return { ok: false, problem: `request key ${JSON.stringify(key.slice(0, 80))} must be 1-64 letters, digits, _ . or -` };
    const parsed = parseRequest(raw[key]);
    if (typeof parsed === 'string') return { ok: false, problem: `requests.${key}: ${parsed}` };
    requests[key] = parsed;
  }
  const state = payload['state'];
  if (state !== undefined && JSON.stringify(state) === undefined) return { ok: false, problem: 'msg.payload.state must be JSON (an object, array, string, number or boolean)' };
  return { ok: true, executionId, ask: { requests, ...(state !== undefined ? { state } : {}) } };
}

function parseRequest(value: unknown): InputRequest | string {
  if (!isPlainObject(value)) return 'must be an object such as { "elicitation": { ... } }';
  if (typeof value['method'] === 'string') {
    const kind = KIND_OF[value['method']];
    if (!kind) return `unknown method ${JSON.stringify(value['method'])}: use elicitation/create, sampling/createMessage or roots/list`;
    return checked(kind, value['params'] ?? {});
  }
  const named = INPUT_KINDS.filter((kind) => kind in value);
  if (named.length !== 1) return 'must name exactly one of elicitation, sampling or roots';
  return checked(named[0]!, value[named[0]!] ?? {});
}

function checked(kind: InputKind, params: unknown): InputRequest | string {
  if (!isPlainObject(params)) return `${kind} must be an object`;
  const problem = kind === 'elicitation' ? elicitationProblem(params) : kind === 'sampling' ? samplingProblem(params) : undefined;
  return problem ?? { method: METHOD_OF[kind], params };
}

function elicitationProblem(params: Record<string, unknown>): string | undefined {
  if (params['mode'] !== undefined && params['mode'] !== 'form') return 'elicitation.mode: only form elicitation is supported (a message and a requestedSchema)';
  if (typeof params['message'] !== 'string' || params['message'] === '') return 'elicitation.message must be a non-empty string';
  const problem = elicitationSchemaProblem(params['requestedSchema']);
  if (problem) return problem;
  // The answer will be checked against it: a schema the checker cannot compile is the flow's mistake.
  const unusable = requestedSchemaProblem(params['requestedSchema']);
  return unusable ? `elicitation.requestedSchema cannot check answers: ${unusable}` : undefined;
}

function samplingProblem(params: Record<string, unknown>): string | undefined {
  const messages = params['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'sampling.messages must be a non-empty array of { role, content }';
  for (const [index, message] of messages.entries()) {
    if (!isPlainObject(message) || (message['role'] !== 'user' && message['role'] !== 'assistant')) return `sampling.messages[${index}].role must be "user" or "assistant"`;
    if (!isPlainObject(message['content']) && !Array.isArray(message['content'])) return `sampling.messages[${index}].content must be a content object such as { "type": "text", "text": "..." }`;
  }
  const maxTokens = params['maxTokens'];
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) return 'sampling.maxTokens must be a whole number of at least 1';
  return undefined;
}

/** The capability object a client declares for each kind (the -32021 error's `requiredCapabilities`). */
export function requiredCapabilities(kinds: Iterable<InputKind>): Record<string, object> {
  const required: Record<string, object> = {};
  for (const kind of kinds) required[kind] = {};
  return required;
}

/** The kinds of `ask` that `allowed` does not let through, with the keys that ask for them. */
export function disallowed(ask: InputAsk, allowed: (kind: InputKind) => boolean): { kinds: InputKind[]; keys: string[] } {
  const kinds = new Set<InputKind>();
  const keys: string[] = [];
  for (const [key, request] of Object.entries(ask.requests)) {
    const kind = kindOf(request);
    if (allowed(kind)) continue;
    kinds.add(kind);
    keys.push(key);
  }
  return { kinds: [...kinds], keys };
}
