import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type GetPromptResult, type ReadResourceResult } from '@modelcontextprotocol/server';
import { callerFields } from '../../access/caller-fields.js';
import { callerKey } from '../../access/caller-key.js';
import { DEFAULTS } from '../../core/defaults.js';
import type { Mutable } from '../../core/mutable.js';
import { CapacityError, type ExecutionOutcome, type RoundInput } from '../../execution/broker.js';
import { argumentsDigest } from '../../input/arguments-digest.js';
import type { StateBinding } from '../../input/request-state.js';
import { INPUT_KINDS } from '../../input/input-requests.js';
import { continueRounds, MAX_INPUT_ROUNDS } from '../../input/input-rounds.js';
import { SERVER_BUSY } from '../json-rpc-codes.js';
import { canTake, giveBackIfBusy, inputRequiredResult } from '../round-trips.js';
import { describeFlowError, formatSeconds } from '../tool-result.js';
import { appViewResult, InvalidAnswerError, promptResultFrom, resourceResultFrom } from './content-answers.js';
import type { ContentCatalog } from './content-catalog.js';
import type { ContentCall, ContentContext, ContentExchange, ContentFinished, ContentHandlerDependencies, ContentKind, ContentOutcome } from './content-types.js';
import { checkPromptArguments, fillPlaceholders, renderPrompt } from './prompt-definition.js';
import type { ResourceDefinition } from './resource-definition.js';
import type { HangUpSignal } from '../../core/hang-up.js';

// `resources/read` and `prompts/get` as one function each, whichever path the request came by: the
// SDK's handlers (content-handlers.ts) and the direct path of plain requests (direct-content.ts) call
// the same ones, so both make every check and tell telemetry the same. Refusals are thrown as the
// ProtocolErrors the SDK turns into JSON-RPC errors.

/** How a request ended, carried on the error that ended it. */
const outcomeOfError = new WeakMap<object, ContentOutcome>();
/** Marks an error with the outcome telemetry reports for the request it ended. */
export function failed<E extends object>(outcome: ContentOutcome, error: E): E {
  outcomeOfError.set(error, outcome);
  return error;
}

/** A read's arguments: none (its URI is bound through the target). */
const NO_ARGUMENTS = argumentsDigest({});

/** What one request learns about itself before it ends. */
export interface Observation {
  name: string;
  mode: ContentFinished['mode'];
  /** Set when the flow's questions were the answer (2026-07-28). */
  asked?: boolean;
}

/** Runs one request and tells `onFinished` how it ended; costs nothing more without a listener. */
export async function observed<R>(deps: ContentHandlerDependencies, kind: ContentKind, exchange: ContentExchange, run: (seen: Observation) => R | Promise<R>): Promise<R> {
  const observer = deps.onFinished;
  if (!observer) return run({ name: 'unknown', mode: 'unknown' });
  const startedAt = performance.now();
  const seen: Observation = { name: 'unknown', mode: 'unknown' };
  const report = (outcome: ContentOutcome, result: unknown) => {
    observer({
      kind,
      endpoint: deps.path,
      name: seen.name,
      outcome,
      caller: exchange.caller,
      durationMs: performance.now() - startedAt,
      responseBytes: result !== undefined && !exchange.signal.aborted && deps.measureResponses?.() ? Buffer.byteLength(JSON.stringify(result)) : 0,
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
}

/** Who asks for what, as the flow sees it in `msg.mcp`. */
export function contentContextOf(deps: ContentHandlerDependencies, exchange: ContentExchange, what: { resource: string } | { prompt: string }): ContentContext {
  // Member by member in this order (the order `msg.mcp` shows): this runs for every read and prompt.
  const context = callerFields(exchange.caller) as Mutable<ContentContext>;
  context.endpoint = deps.path;
  if ('resource' in what) context.resource = what.resource;
  else context.prompt = what.prompt;
  context.protocolVersion = exchange.protocolVersion;
  context.requestId = exchange.requestId;
  return context;
}

/** `resources/read` of `uri`: the editor's text with the template's values, or the flow's answer. */
export function readResource(deps: ContentHandlerDependencies, catalog: ContentCatalog, uri: string, exchange: ContentExchange): Promise<ReadResourceResult> {
  return observed(deps, 'resource', exchange, async (seen) => {
    const found = catalog.findResource(uri);
    // The SDK sends -32602 with data { uri } (2026-07-28); the 2025 exchange hub restores -32002.
    if (!found) {
      // A resource the caller may not read is answered as one nobody serves; telemetry hears the refusal.
      if (catalog.withholdsResource(uri)) seen.name = catalog.wholeResourceName(uri);
      throw failed(seen.name === 'unknown' ? 'unknown_resource' : 'not_allowed', new ResourceNotFoundError(uri));
    }
    const { resource, variables } = found;
    seen.name = resource.uri;
    if (resource.staticText !== undefined) {
      seen.mode = 'static';
      return staticContents(resource, uri, variables);
    }
    seen.mode = 'flow';
    const call: ContentCall = { kind: 'resource-read', uri, variables, context: contentContextOf(deps, exchange, { resource: resource.uri }), ...(resource.relay ? { relay: resource.relay } : {}) };
    // The URI is the read's only argument, and the state is bound to it through the target.
    const outcome = await askingRun(deps, call, resource.timeoutMs, exchange, { target: `resource:${uri}`, arguments: () => NO_ARGUMENTS }, `Resource ${uri}`, seen);
    if (outcome.kind === 'asked') return outcome.result as unknown as ReadResourceResult;
    const contents = answerOf(outcome, `Resource ${uri}`);
    try {
      const result = resourceResultFrom(contents, uri, resource.mimeType, DEFAULTS.maxResultBytes);
      return resource.appMeta ? appViewResult(result, uri, resource.appMeta) : result;
    } catch (error) {
      throw invalidAnswer(error, `Resource ${uri}`);
    }
  });
}

/** The text set in the editor for `resource`, its `{{variable}}` placeholders filled from the URI read. */
export function staticContents(resource: ResourceDefinition, uri: string, variables: Record<string, string>): ReadResourceResult {
  const text = fillPlaceholders(resource.staticText ?? '', variables, new Set(Object.keys(variables)));
  return { contents: [{ uri, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}), text, ...(resource.appMeta ? { _meta: resource.appMeta } : {}) }] };
}

/** `prompts/get` of `name`: its arguments checked, then the editor's template or the flow's messages. */
export function getPrompt(deps: ContentHandlerDependencies, catalog: ContentCatalog, params: { readonly name: string; readonly arguments?: Record<string, unknown> | undefined }, exchange: ContentExchange): Promise<GetPromptResult> {
  return observed(deps, 'prompt', exchange, async (seen) => {
    const name = params.name;
    const prompt = catalog.findPrompt(name);
    if (!prompt) {
      const withheld = catalog.withholdsPrompt(name);
      if (withheld) seen.name = name;
      throw failed(withheld ? 'not_allowed' : 'unknown_prompt', new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${name}". Call prompts/list to see the prompts this endpoint offers.`));
    }
    seen.name = prompt.name;
    seen.mode = prompt.template ? 'static' : 'flow';
    const given = params.arguments ?? {};
    const problem = checkPromptArguments(prompt, given);
    if (problem) throw failed('invalid_arguments', new ProtocolError(ProtocolErrorCode.InvalidParams, problem));
    const values = given as Record<string, string>;
    if (prompt.template) return renderPrompt(prompt, values);
    const call: ContentCall = { kind: 'prompt-get', name, arguments: values, context: contentContextOf(deps, exchange, { prompt: name }), ...(prompt.relay ? { relay: prompt.relay } : {}) };
    // The values as they came (string values: a shallow copy is a whole one), whatever the flow does with its own.
    const asGiven = { ...values };
    const outcome = await askingRun(deps, call, prompt.timeoutMs, exchange, { target: `prompt:${name}`, arguments: () => argumentsDigest(asGiven) }, `Prompt "${name}"`, seen);
    if (outcome.kind === 'asked') return outcome.result as unknown as GetPromptResult;
    const messages = answerOf(outcome, `Prompt "${name}"`);
    try {
      return promptResultFrom(messages, prompt.listing.description, DEFAULTS.maxResultBytes);
    } catch (error) {
      throw invalidAnswer(error, `Prompt "${name}"`);
    }
  });
}

/** Hands one call to the flow through the endpoint's broker; a full broker is -32000 Server busy. */
export function beginContent(deps: ContentHandlerDependencies, call: ContentCall, timeoutMs: number, signal: HangUpSignal): Promise<ExecutionOutcome> {
  // Not async, so a read holds no frame of its own while the flow works: the broker refuses a full
  // endpoint by throwing before it returns, and its promise never rejects.
  try {
    return deps.begin(call, timeoutMs, signal);
  } catch (error) {
    if (error instanceof CapacityError) {
      return Promise.reject(failed('busy', new ProtocolError(SERVER_BUSY, `Server busy: ${error.limit} calls are already running on ${deps.path}; retry shortly.`)));
    }
    return Promise.reject(error);
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
  exchange: ContentExchange,
  /**
   * What a sealed state is bound to besides endpoint and caller: the read's URI, the prompt's name and
   * a digest of its arguments, worked out only when a state is sealed or opened (most requests do neither).
   */
  bound: { readonly target: string; readonly arguments: () => string },
  what: string,
  seen: Observation,
): Promise<ExecutionOutcome | { readonly kind: 'asked'; readonly result: Record<string, unknown> }> {
  let sealedTo: StateBinding | undefined;
  const binding = () => (sealedTo ??= { endpoint: deps.path, caller: callerKey(exchange.caller), target: bound.target, arguments: bound.arguments() });
  const modern = exchange.modern;
  let first: RoundInput | undefined;
  let release: (() => Promise<void>) | undefined;
  if (modern) {
    const resumption = await modern.resume(deps.roundStates, binding);
    if ('reask' in resumption) return asked(inputRequiredResult(resumption.reask, resumption.round, deps.roundStates, binding(), resumption.answered), seen);
    first = resumption.input;
    release = resumption.release;
  }
  const run = (input: RoundInput | undefined) => beginContent(deps, input ? { ...call, input } : call, timeoutMs, exchange.signal);
  const started = run(first);
  const outcome = await (release ? started.catch(giveBackIfBusy(release)) : started);
  if (outcome.kind !== 'input') return outcome;
  const declared = modern?.declaredCapabilities();
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
  return asked(inputRequiredResult(ended.ask, ended.round, deps.roundStates, binding()), seen);
}

/** The questions as the answer; the request is reported as `input_required`, not as a success. */
function asked(result: Record<string, unknown>, seen: Observation): { readonly kind: 'asked'; readonly result: Record<string, unknown> } {
  seen.asked = true;
  return { kind: 'asked', result };
}

/** The flow's answer, or the JSON-RPC error that tells the client why there is none. */
export function answerOf(outcome: ExecutionOutcome, what: string): unknown {
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

export function invalidAnswer(error: unknown, what: string): unknown {
  if (!(error instanceof InvalidAnswerError)) return error;
  return new ProtocolError(ProtocolErrorCode.InternalError, `${what}: ${error.message}.`);
}
