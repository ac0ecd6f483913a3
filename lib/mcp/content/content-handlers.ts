import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type ReadResourceResult,
  type RequestId,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { DEFAULTS } from '../../core/defaults.js';
import { CapacityError, type ExecutionOutcome, type RoundInput } from '../../execution/broker.js';
import { callerKey } from '../../access/caller-key.js';
import { INPUT_KINDS } from '../../input/input-requests.js';
import { continueRounds, MAX_INPUT_ROUNDS } from '../../input/input-rounds.js';
import { argumentsDigest } from '../../input/arguments-digest.js';
import { canTake, declaredClientCapabilities, giveBackIfBusy, inputRequiredResult, resumeRound, type RoundTripStates } from '../round-trips.js';
import { protocolVersionOf } from '../protocol-version.js';
import { SERVER_BUSY } from '../json-rpc-codes.js';
import { describeFlowError, formatSeconds } from '../tool-result.js';
import { InvalidAnswerError, promptResultFrom, resourceResultFrom } from './content-answers.js';
import type { ContentCatalog } from './content-catalog.js';
import { completeFrom, completeFromFlow } from './completion-values.js';
import { PROMPT_GET_PARAMS, RESOURCE_READ_PARAMS } from './content-params.js';
import { checkPromptArguments, fillPlaceholders, renderPrompt } from './prompt-definition.js';

/** Who asked and for what; `msg.mcp` of the message the flow receives. */
export interface ContentContext extends CallerIdentity {
  readonly endpoint: string;
  readonly resource?: string;
  readonly prompt?: string;
  readonly protocolVersion: string;
  readonly requestId: string | number;
}

/** What a completion is for, as the client named it. */
export type CompletionRef = { readonly type: 'ref/prompt'; readonly name: string } | { readonly type: 'ref/resource'; readonly uri: string };

/** A read, prompt or completion the flow answers; the flow-server node turns it into a message. */
export type ContentCall =
  | { readonly kind: 'resource-read'; readonly uri: string; readonly variables: Record<string, string>; readonly context: ContentContext; readonly input?: RoundInput }
  | { readonly kind: 'prompt-get'; readonly name: string; readonly arguments: Record<string, string>; readonly context: ContentContext; readonly input?: RoundInput }
  | {
      readonly kind: 'completion';
      readonly ref: CompletionRef;
      readonly argument: { readonly name: string; readonly value: string };
      /** Values of the other arguments or variables the client already has, when it sent them. */
      readonly arguments?: Record<string, string>;
      readonly context: ContentContext;
    };

export type ContentKind = 'resource' | 'prompt' | 'completion';
export type ContentOutcome =
  | 'success'
  | 'error'
  | 'invalid_arguments'
  | 'unknown_resource'
  | 'unknown_prompt'
  | 'busy'
  | 'timeout'
  | 'stopped'
  | 'cancelled'
  /** A 2026-07-28 read or prompt whose flow asked the client: the questions were its answer. */
  | 'input_required';

/** Told once per read, prompt or completion, whatever its outcome (telemetry, audit). */
export interface ContentFinished {
  readonly kind: ContentKind;
  readonly endpoint: string;
  /** The declared URI or template, or prompt name (never the concrete URI, whose values are the caller's); `unknown` when none matched. */
  readonly name: string;
  readonly outcome: ContentOutcome;
  readonly caller: CallerIdentity;
  readonly durationMs: number;
  readonly responseBytes: number;
  /** `flow` when the flow answered (or was asked to), `static` when the editor's content did, `unknown` when nothing matched. */
  readonly mode: 'flow' | 'static' | 'unknown';
}

export interface ContentHandlerDependencies {
  readonly path: string;
  /** The endpoint's broker: same concurrency cap and time limits as tool calls. Throws CapacityError. */
  readonly begin: (call: ContentCall, timeoutMs: number, signal: AbortSignal) => Promise<ExecutionOutcome>;
  /** The caller and the connection's hang-up signal for one request. */
  readonly exchangeOf: (handlerCtx: ServerContext) => { readonly caller: CallerIdentity; readonly signal: AbortSignal };
  readonly onFinished?: (event: ContentFinished) => void;
  /** Whether anyone reads `responseBytes` now (sizing costs a serialisation). */
  readonly measureResponses?: () => boolean;
  /** Seals the state of a 2026-07-28 read or prompt whose flow asks the client, and keeps it single-use (as for tools). */
  readonly roundStates: RoundTripStates;
}


/** How a request ended, carried on the error that ended it (errors are thrown to the SDK). */
const outcomeOfError = new WeakMap<object, ContentOutcome>();
function failed<E extends object>(outcome: ContentOutcome, error: E): E {
  outcomeOfError.set(error, outcome);
  return error;
}

/** What one request learns about itself before it ends. */
interface Observation {
  name: string;
  mode: ContentFinished['mode'];
  /** Set when the flow's questions were the answer (2026-07-28). */
  asked?: boolean;
}

/**
 * `resources/*`, `prompts/*` and `completion/complete` answered from one deploy's catalog, on the
 * same low-level SDK `Server` as tools. Only what the catalog declares is registered, so an
 * endpoint without prompts still answers `prompts/list` with -32601 and declares no capability.
 */
export function registerContentHandlers(
  server: Server,
  catalog: ContentCatalog,
  deps: ContentHandlerDependencies,
  clientRequestId: (id: RequestId) => RequestId,
  modern: boolean,
): void {
  const contextOf = (handlerCtx: ServerContext, what: { resource: string } | { prompt: string }): ContentContext => {
    const { subject, email, groups, client } = deps.exchangeOf(handlerCtx).caller;
    return {
      ...(subject !== undefined ? { subject } : {}),
      ...(email !== undefined ? { email } : {}),
      ...(groups !== undefined ? { groups } : {}),
      ...(client !== undefined ? { client } : {}),
      endpoint: deps.path,
      ...what,
      protocolVersion: protocolVersionOf(handlerCtx),
      requestId: clientRequestId(handlerCtx.mcpReq.id),
    };
  };

  /** Runs one request and tells `onFinished` how it ended; costs nothing more without a listener. */
  const observed = async <R>(kind: ContentKind, handlerCtx: ServerContext, run: (seen: Observation) => R | Promise<R>): Promise<R> => {
    const observer = deps.onFinished;
    if (!observer) return run({ name: 'unknown', mode: 'unknown' });
    const startedAt = performance.now();
    const seen: Observation = { name: 'unknown', mode: 'unknown' };
    const report = (outcome: ContentOutcome, result: unknown) => {
      const { caller, signal } = deps.exchangeOf(handlerCtx);
      observer({
        kind,
        endpoint: deps.path,
        name: seen.name,
        outcome,
        caller,
        durationMs: performance.now() - startedAt,
        responseBytes: result !== undefined && !signal.aborted && deps.measureResponses?.() ? Buffer.byteLength(JSON.stringify(result)) : 0,
        mode: seen.mode,
      });
    };
    try {
      const result = await run(seen);
      report(seen.asked ? 'input_required' : 'success', result);
      return result;
    } catch (error) {
      report((typeof error === 'object' && error !== null && outcomeOfError.get(error)) || 'error', undefined);
      throw error;
    }
  };

  if (catalog.capabilities.resources) {
    server.setRequestHandler('resources/list', (request) => catalog.resourcePages.page(request.params?.cursor));
    server.setRequestHandler('resources/templates/list', (request) => catalog.templatePages.page(request.params?.cursor));
    // Params checked by our schema, so a malformed request gets -32602, not the SDK's -32603 dump.
    server.setRequestHandler('resources/read', { params: RESOURCE_READ_PARAMS }, (params, handlerCtx): Promise<ReadResourceResult> =>
      observed('resource', handlerCtx, async (seen) => {
        const uri = params.uri;
        const found = catalog.findResource(uri);
        // The SDK sends -32602 with data { uri } (2026-07-28); the 2025 exchange hub restores -32002.
        if (!found) throw failed('unknown_resource', new ResourceNotFoundError(uri));
        const { resource, variables } = found;
        seen.name = resource.uri;
        if (resource.staticText !== undefined) {
          seen.mode = 'static';
          const text = fillPlaceholders(resource.staticText, variables, new Set(Object.keys(variables)));
          return { contents: [{ uri, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}), text }] };
        }
        seen.mode = 'flow';
        const call: ContentCall = { kind: 'resource-read', uri, variables, context: contextOf(handlerCtx, { resource: resource.uri }) };
        // The URI is the read's only argument, and the state is bound to it through the target.
        const outcome = await askingRun(deps, call, resource.timeoutMs, handlerCtx, modern, { target: `resource:${uri}`, arguments: argumentsDigest({}) }, `Resource ${uri}`, seen);
        if (outcome.kind === 'asked') return outcome.result as unknown as ReadResourceResult;
        const contents = answerOf(outcome, `Resource ${uri}`);
        try {
          return resourceResultFrom(contents, uri, resource.mimeType, DEFAULTS.maxResultBytes);
        } catch (error) {
          throw invalidAnswer(error, `Resource ${uri}`);
        }
      }),
    );
  }

  if (catalog.capabilities.prompts) {
    server.setRequestHandler('prompts/list', (request) => catalog.promptPages.page(request.params?.cursor));
    server.setRequestHandler('prompts/get', { params: PROMPT_GET_PARAMS }, (params, handlerCtx): Promise<GetPromptResult> =>
      observed('prompt', handlerCtx, async (seen) => {
        const name = params.name;
        const prompt = catalog.findPrompt(name);
        if (!prompt) {
          throw failed('unknown_prompt', new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${name}". Call prompts/list to see the prompts this endpoint offers.`));
        }
        seen.name = prompt.name;
        seen.mode = prompt.template ? 'static' : 'flow';
        const given = params.arguments ?? {};
        const problem = checkPromptArguments(prompt, given);
        if (problem) throw failed('invalid_arguments', new ProtocolError(ProtocolErrorCode.InvalidParams, problem));
        const values = given as Record<string, string>;
        if (prompt.template) return renderPrompt(prompt, values);
        const call: ContentCall = { kind: 'prompt-get', name, arguments: values, context: contextOf(handlerCtx, { prompt: name }) };
        const outcome = await askingRun(deps, call, prompt.timeoutMs, handlerCtx, modern, { target: `prompt:${name}`, arguments: argumentsDigest(values) }, `Prompt "${name}"`, seen);
        if (outcome.kind === 'asked') return outcome.result as unknown as GetPromptResult;
        const messages = answerOf(outcome, `Prompt "${name}"`);
        try {
          return promptResultFrom(messages, prompt.listing.description, DEFAULTS.maxResultBytes);
        } catch (error) {
          throw invalidAnswer(error, `Prompt "${name}"`);
        }
      }),
    );
  }

  if (catalog.capabilities.completions) {
    server.setRequestHandler('completion/complete', (request: CompleteRequest, handlerCtx): Promise<CompleteResult> =>
      observed('completion', handlerCtx, async (seen) => {
        const { ref, argument } = request.params;
        const target = ref.type === 'ref/prompt' ? catalog.findPrompt(ref.name) : catalog.findTemplate(ref.uri);
        if (!target) {
          throw ref.type === 'ref/prompt'
            ? failed('unknown_prompt', new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${ref.name}".`))
            : failed('unknown_resource', new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template "${ref.uri}".`));
        }
        seen.name = ref.type === 'ref/prompt' ? ref.name : ref.uri;
        if (!target.flowCompletions.has(argument.name)) {
          seen.mode = 'static';
          return completeFrom(target.completions.get(argument.name), argument.value);
        }
        seen.mode = 'flow';
        const what = ref.type === 'ref/prompt' ? { prompt: ref.name } : { resource: ref.uri };
        const others = request.params.context?.arguments;
        const call: ContentCall = {
          kind: 'completion',
          ref: ref.type === 'ref/prompt' ? { type: 'ref/prompt', name: ref.name } : { type: 'ref/resource', uri: ref.uri },
          argument: { name: argument.name, value: argument.value },
          ...(others ? { arguments: { ...others } } : {}),
          context: contextOf(handlerCtx, what),
        };
        const label = `Completion of "${argument.name}" for ${ref.type === 'ref/prompt' ? `prompt "${ref.name}"` : `resource template ${ref.uri}`}`;
        const outcome = await begin(deps, call, target.timeoutMs, handlerCtx);
        const answer = answerOf(outcome, label);
        try {
          return completeFromFlow(answer, argument.value);
        } catch (error) {
          throw invalidAnswer(error, label);
        }
      }),
    );
  }
}

async function begin(deps: ContentHandlerDependencies, call: ContentCall, timeoutMs: number, handlerCtx: ServerContext): Promise<ExecutionOutcome> {
  try {
    return await deps.begin(call, timeoutMs, deps.exchangeOf(handlerCtx).signal);
  } catch (error) {
    if (error instanceof CapacityError) {
      throw failed('busy', new ProtocolError(SERVER_BUSY, `Server busy: ${error.limit} calls are already running on ${deps.path}; retry shortly.`));
    }
    throw error;
  }
}

/**
 * Runs a flow-answered read or prompt, which may ask the client like a tool call (mcp-prompt-input,
 * mcp-resource-input): on 2026-07-28 the questions become the answer (`input_required`) and the
 * retry brings the answers back; on the 2025 revisions only tool calls have a stream to ask on, so
 * the flow is told it cannot ask. A read or prompt that never asks costs one property check more.
 */
async function askingRun(
  deps: ContentHandlerDependencies,
  call: Extract<ContentCall, { kind: 'resource-read' | 'prompt-get' }>,
  timeoutMs: number,
  handlerCtx: ServerContext,
  modern: boolean,
  /** What a sealed state is bound to besides endpoint and caller: the read's URI, the prompt's name and arguments. */
  bound: { readonly target: string; readonly arguments: string },
  what: string,
  seen: Observation,
): Promise<ExecutionOutcome | { readonly kind: 'asked'; readonly result: Record<string, unknown> }> {
  const binding = { endpoint: deps.path, caller: callerKey(deps.exchangeOf(handlerCtx).caller), ...bound };
  let first: RoundInput | undefined;
  let release: (() => Promise<void>) | undefined;
  if (modern) {
    const resumption = await resumeRound(handlerCtx, deps.roundStates, binding);
    if ('reask' in resumption) return asked(inputRequiredResult(resumption.reask, resumption.round, deps.roundStates, binding, resumption.answered), seen);
    first = resumption.input;
    release = resumption.release;
  }
  const run = (input: RoundInput | undefined) => begin(deps, input ? { ...call, input } : call, timeoutMs, handlerCtx);
  const outcome = await run(first).catch(giveBackIfBusy(release));
  if (outcome.kind !== 'input') return outcome;
  const declared = modern ? (declaredClientCapabilities(handlerCtx) ?? {}) : undefined;
  const ended = await continueRounds(
    {
      begin: run,
      deliver: async (ask) => ({ handOver: ask }),
      declared: new Set(INPUT_KINDS),
      ...(declared ? { clientCan: (kind) => canTake(declared, kind) } : { cannotAsk: `${what} cannot ask the client on the 2025 revisions: only tool calls have a stream to ask on.` }),
      maxRounds: MAX_INPUT_ROUNDS,
      what,
    },
    outcome,
    first,
  );
  if (ended.kind !== 'handOver') return ended;
  return asked(inputRequiredResult(ended.ask, ended.round, deps.roundStates, binding), seen);
}

/** The questions as the answer; the request is reported as `input_required`, not as a success. */
function asked(result: Record<string, unknown>, seen: Observation): { readonly kind: 'asked'; readonly result: Record<string, unknown> } {
  seen.asked = true;
  return { kind: 'asked', result };
}

/** The flow's answer, or the JSON-RPC error that tells the client why there is none. */
function answerOf(outcome: ExecutionOutcome, what: string): unknown {
  switch (outcome.kind) {
    case 'timeout':
      throw failed('timeout', new ProtocolError(ProtocolErrorCode.InternalError, `${what} was not answered within ${formatSeconds(outcome.timeoutMs)} (its time limit).`));
    case 'stopped':
      throw failed('stopped', new ProtocolError(SERVER_BUSY, `${what} was not answered: ${outcome.reason}.`));
    case 'cancelled':
      throw failed('cancelled', new ProtocolError(ProtocolErrorCode.InternalError, `${what} was cancelled because the client went away.`));
    case 'input':
      throw new ProtocolError(ProtocolErrorCode.InternalError, `${what} asked the client for input, which only tool calls can do.`);
    case 'answered':
      if (outcome.error !== undefined && outcome.error !== null && outcome.error !== false) {
        throw new ProtocolError(ProtocolErrorCode.InternalError, `${what} failed: ${describeFlowError(outcome.error)}`);
      }
      return outcome.result;
  }
}

function invalidAnswer(error: unknown, what: string): unknown {
  if (!(error instanceof InvalidAnswerError)) return error;
  return new ProtocolError(ProtocolErrorCode.InternalError, `${what}: ${error.message}.`);
}
