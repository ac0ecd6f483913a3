import { ProtocolError, ProtocolErrorCode, type CompleteRequest, type CompleteResult, type GetPromptResult, type ReadResourceResult, type RequestId, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { callerOf } from '../exchange.js';
import { protocolVersionOf } from '../protocol-version.js';
import { declaredClientCapabilities, resumeRound } from '../round-trips.js';
import type { ContentCatalog } from './content-catalog.js';
import { answerOf, beginContent, contentContextOf, failed, getPrompt, invalidAnswer, observed, readResource } from './content-requests.js';
import type { ContentCall, ContentExchange, ContentHandlerDependencies } from './content-types.js';
import { completeFrom, completeFromFlow } from './completion-values.js';
import { PROMPT_GET_PARAMS, RESOURCE_READ_PARAMS } from './content-params.js';

/**
 * `resources/*`, `prompts/*` and `completion/complete` answered from one deploy's catalog, on the
 * same low-level SDK `Server` as tools. Only what the catalog declares is registered, so an
 * endpoint without prompts still answers `prompts/list` with -32601 and declares no capability.
 * Reads and prompts are served by content-requests.ts, as on the direct path of plain requests.
 */
export function registerContentHandlers(
  server: Server,
  /**
   * The deploy's catalog now (a shared 2025-era server outlives deploys that keep its capabilities),
   * whole, and as the caller of a request may see it.
   */
  catalogs: { readonly whole: () => ContentCatalog; readonly of: (handlerCtx: ServerContext) => ContentCatalog },
  deps: ContentHandlerDependencies,
  clientRequestId: (id: RequestId) => RequestId,
  modern: boolean,
): void {
  const exchangeOf = (handlerCtx: ServerContext): ContentExchange => {
    const { caller, signal } = callerOf(handlerCtx);
    return {
      caller,
      signal,
      protocolVersion: protocolVersionOf(handlerCtx),
      requestId: clientRequestId(handlerCtx.mcpReq.id),
      ...(modern ? { modern: { resume: (states, binding) => resumeRound(handlerCtx, states, binding), declaredCapabilities: () => declaredClientCapabilities(handlerCtx) ?? {} } } : {}),
    };
  };

  // What is registered follows the catalog's capabilities; a deploy that changes them builds new servers.
  const catalog = catalogs.whole();
  const current = catalogs.of;
  if (catalog.capabilities.resources) {
    server.setRequestHandler('resources/list', (request, handlerCtx) => current(handlerCtx).resourcePages.page(request.params?.cursor));
    server.setRequestHandler('resources/templates/list', (request, handlerCtx) => current(handlerCtx).templatePages.page(request.params?.cursor));
    // Params checked by our schema, so a malformed request gets -32602, not the SDK's -32603 dump.
    server.setRequestHandler('resources/read', { params: RESOURCE_READ_PARAMS }, (params, handlerCtx): Promise<ReadResourceResult> => readResource(deps, current(handlerCtx), params.uri, exchangeOf(handlerCtx)));
  }

  if (catalog.capabilities.prompts) {
    server.setRequestHandler('prompts/list', (request, handlerCtx) => current(handlerCtx).promptPages.page(request.params?.cursor));
    server.setRequestHandler('prompts/get', { params: PROMPT_GET_PARAMS }, (params, handlerCtx): Promise<GetPromptResult> => getPrompt(deps, current(handlerCtx), params, exchangeOf(handlerCtx)));
  }

  if (catalog.capabilities.completions) {
    server.setRequestHandler('completion/complete', (request: CompleteRequest, handlerCtx): Promise<CompleteResult> => {
      const exchange = exchangeOf(handlerCtx);
      return observed(deps, 'completion', exchange, async (seen) => {
        const { ref, argument } = request.params;
        const now = current(handlerCtx);
        const target = ref.type === 'ref/prompt' ? now.findPrompt(ref.name) : now.findTemplate(ref.uri);
        if (!target) {
          // One the caller may not use is answered as one nobody serves; telemetry hears the refusal.
          const withheld = ref.type === 'ref/prompt' ? now.withholdsPrompt(ref.name) : now.withholdsTemplate(ref.uri);
          if (withheld) seen.name = ref.type === 'ref/prompt' ? ref.name : ref.uri;
          const refusal = ref.type === 'ref/prompt'
            ? new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${ref.name}".`)
            : new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template "${ref.uri}".`);
          throw failed(withheld ? 'not_allowed' : ref.type === 'ref/prompt' ? 'unknown_prompt' : 'unknown_resource', refusal);
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
          context: contentContextOf(deps, exchange, what),
          ...(target.relay ? { relay: target.relay } : {}),
        };
        const label = `Completion of "${argument.name}" for ${ref.type === 'ref/prompt' ? `prompt "${ref.name}"` : `resource template ${ref.uri}`}`;
        const outcome = await beginContent(deps, call, target.timeoutMs, exchange.signal);
        const answer = answerOf(outcome, label);
        try {
          return completeFromFlow(answer, argument.value);
        } catch (error) {
          throw invalidAnswer(error, label);
        }
      });
    });
  }
}
