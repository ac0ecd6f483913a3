import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptRequest,
  type GetPromptResult,
  type ReadResourceRequest,
  type ReadResourceResult,
  type RequestId,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { DEFAULTS } from '../../core/defaults.js';
import { CapacityError, type ExecutionOutcome } from '../../execution/broker.js';
import { protocolVersionOf } from '../protocol-version.js';
import { describeFlowError, formatSeconds } from '../tool-result.js';
import { InvalidAnswerError, promptResultFrom, resourceResultFrom } from './content-answers.js';
import type { ContentCatalog } from './content-catalog.js';
import { completeFrom } from './completion-values.js';
import { checkPromptArguments, fillPlaceholders, renderPrompt } from './prompt-definition.js';

/** Who asked and for what; `msg.mcp` of the message the flow receives. */
export interface ContentContext extends CallerIdentity {
  readonly endpoint: string;
  readonly resource?: string;
  readonly prompt?: string;
  readonly protocolVersion: string;
  readonly requestId: string | number;
}

/** A read or prompt the flow answers; the flow-server node turns it into a message. */
export type ContentCall =
  | { readonly kind: 'resource-read'; readonly uri: string; readonly variables: Record<string, string>; readonly context: ContentContext }
  | { readonly kind: 'prompt-get'; readonly name: string; readonly arguments: Record<string, string>; readonly context: ContentContext };

export interface ContentHandlerDependencies {
  readonly path: string;
  /** The endpoint's broker: same concurrency cap and time limits as tool calls. Throws CapacityError. */
  readonly begin: (call: ContentCall, timeoutMs: number, signal: AbortSignal) => Promise<ExecutionOutcome>;
  /** The caller and the connection's hang-up signal for one request. */
  readonly exchangeOf: (handlerCtx: ServerContext) => { readonly caller: CallerIdentity; readonly signal: AbortSignal };
}

/** Same code the endpoint uses when tool calls fill it: the cap is shared. */
const SERVER_BUSY = -32000;

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

  if (catalog.capabilities.resources) {
    server.setRequestHandler('resources/list', (request) => catalog.resourcePages.page(request.params?.cursor));
    server.setRequestHandler('resources/templates/list', (request) => catalog.templatePages.page(request.params?.cursor));
    server.setRequestHandler('resources/read', async (request: ReadResourceRequest, handlerCtx): Promise<ReadResourceResult> => {
      const uri = request.params.uri;
      const found = catalog.findResource(uri);
      // The SDK sends -32602 with data { uri } (2026-07-28); the 2025 exchange hub restores -32002.
      if (!found) throw new ResourceNotFoundError(uri);
      const { resource, variables } = found;
      if (resource.staticText !== undefined) {
        const text = fillPlaceholders(resource.staticText, variables, new Set(Object.keys(variables)));
        return { contents: [{ uri, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}), text }] };
      }
      const call: ContentCall = { kind: 'resource-read', uri, variables, context: contextOf(handlerCtx, { resource: resource.uri }) };
      const outcome = await begin(deps, call, resource.timeoutMs, handlerCtx);
      const contents = answerOf(outcome, `Resource ${uri}`);
      try {
        return resourceResultFrom(contents, uri, resource.mimeType, DEFAULTS.maxResultBytes);
      } catch (error) {
        throw invalidAnswer(error, `Resource ${uri}`);
      }
    });
  }

  if (catalog.capabilities.prompts) {
    server.setRequestHandler('prompts/list', (request) => catalog.promptPages.page(request.params?.cursor));
    server.setRequestHandler('prompts/get', async (request: GetPromptRequest, handlerCtx): Promise<GetPromptResult> => {
      const name = request.params.name;
      const prompt = catalog.findPrompt(name);
      if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${name}". Call prompts/list to see the prompts this endpoint offers.`);
      const values = (request.params.arguments ?? {}) as Record<string, string>;
      const problem = checkPromptArguments(prompt, values);
      if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, problem);
      if (prompt.template) return renderPrompt(prompt, values);
      const call: ContentCall = { kind: 'prompt-get', name, arguments: values, context: contextOf(handlerCtx, { prompt: name }) };
      const outcome = await begin(deps, call, prompt.timeoutMs, handlerCtx);
      const messages = answerOf(outcome, `Prompt "${name}"`);
      try {
        return promptResultFrom(messages, prompt.listing.description, DEFAULTS.maxResultBytes);
      } catch (error) {
        throw invalidAnswer(error, `Prompt "${name}"`);
      }
    });
  }

  if (catalog.capabilities.completions) {
    server.setRequestHandler('completion/complete', (request: CompleteRequest): CompleteResult => {
      const { ref, argument } = request.params;
      if (ref.type === 'ref/prompt') {
        const prompt = catalog.findPrompt(ref.name);
        if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${ref.name}".`);
        return completeFrom(prompt.completions.get(argument.name), argument.value);
      }
      const template = catalog.findTemplate(ref.uri);
      if (!template) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template "${ref.uri}".`);
      return completeFrom(template.completions.get(argument.name), argument.value);
    });
  }
}

async function begin(deps: ContentHandlerDependencies, call: ContentCall, timeoutMs: number, handlerCtx: ServerContext): Promise<ExecutionOutcome> {
  try {
    return await deps.begin(call, timeoutMs, deps.exchangeOf(handlerCtx).signal);
  } catch (error) {
    if (error instanceof CapacityError) {
      throw new ProtocolError(SERVER_BUSY, `Server busy: ${error.limit} calls are already running on ${deps.path}; retry shortly.`);
    }
    throw error;
  }
}

/** The flow's answer, or the JSON-RPC error that tells the client why there is none. */
function answerOf(outcome: ExecutionOutcome, what: string): unknown {
  switch (outcome.kind) {
    case 'timeout':
      throw new ProtocolError(ProtocolErrorCode.InternalError, `${what} was not answered within ${formatSeconds(outcome.timeoutMs)} (its time limit).`);
    case 'stopped':
      throw new ProtocolError(SERVER_BUSY, `${what} was not answered: ${outcome.reason}.`);
    case 'cancelled':
      throw new ProtocolError(ProtocolErrorCode.InternalError, `${what} was cancelled because the client went away.`);
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
