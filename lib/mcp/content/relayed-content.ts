import type { CallerIdentity } from '../../access/access-policy.js';
import { DEFAULTS } from '../../core/defaults.js';
import { CapacityError, type ExecutionOutcome, type RoundInput } from '../../execution/broker.js';
import type { RelayReply } from '../../edge/edge-agent.js';
import { isOffered } from '../../edge/edge-content.js';
import type { RelayedContentRequest } from '../../edge/edge-protocol.js';
import type { FlowCalls } from '../calls/flow-calls.js';
import { ProtocolError } from '@modelcontextprotocol/server';
import { vouchedCaller } from '../../edge/edge-protocol.js';
import { RELAY_GRACE_MS } from '../calls/relayed-call.js';
import { promptResultFrom, resourceResultFrom } from './content-answers.js';
import { answerOf, invalidAnswer, staticContents } from './content-requests.js';
import type { ContentCatalog } from './content-catalog.js';
import type { ContentCall, ContentContext } from './content-types.js';
import { completeFrom, completeFromFlow } from './completion-values.js';
import { checkPromptArguments, renderPrompt } from './prompt-definition.js';

/** One read, prompt or completion a hub relayed to this edge (lib/edge/edge-agent.ts reads it off the site's channel). */
export interface RelayedContent {
  /** The hub's executionId: the edge's flow answers under it, and the hub's cancel names it. */
  readonly id: string;
  readonly request: RelayedContentRequest;
  readonly caller: CallerIdentity;
  readonly hub: string;
  readonly protocolVersion: string;
  /** A later round of a read or prompt whose flow asked the client: the answers as the hub checked them. */
  readonly input?: RoundInput;
}

/**
 * Answers a relayed read, prompt or completion on this edge endpoint as it answers its own clients:
 * the editor's text, template or list where the item has one, else its flow through the endpoint's
 * broker (concurrency cap, time limit) with the answer checked here. The hub checks it again, under
 * its own URIs. Resolves with what to send back, or undefined when the hub withdrew it.
 */
export async function runRelayedContent(path: string, catalog: ContentCatalog, flowCalls: FlowCalls, call: RelayedContent): Promise<RelayReply | undefined> {
  const { request } = call;
  switch (request.kind) {
    case 'resource-read': {
      const found = catalog.findResource(request.uri);
      if (!found || !isOffered(found.resource)) return gone(`Resource ${request.uri}`);
      const { resource, variables } = found;
      if (resource.staticText !== undefined) return { result: staticContents(resource, request.uri, variables).contents };
      const what = `Resource ${request.uri}`;
      const context = contextOf(path, call, { resource: resource.uri });
      return settled(await begin(flowCalls, call.id, { kind: 'resource-read', uri: request.uri, variables, context, ...round(call) }, resource.timeoutMs), what, (answer) =>
        resourceResultFrom(answer, request.uri, resource.mimeType, DEFAULTS.maxResultBytes).contents,
      );
    }
    case 'prompt-get': {
      const prompt = catalog.findPrompt(request.name);
      if (!prompt || !isOffered(prompt)) return gone(`Prompt "${request.name}"`);
      const problem = checkPromptArguments(prompt, request.arguments);
      if (problem) return { error: problem };
      if (prompt.template) return { result: renderPrompt(prompt, request.arguments).messages };
      const what = `Prompt "${request.name}"`;
      const context = contextOf(path, call, { prompt: prompt.name });
      return settled(await begin(flowCalls, call.id, { kind: 'prompt-get', name: prompt.name, arguments: request.arguments, context, ...round(call) }, prompt.timeoutMs), what, (answer) =>
        promptResultFrom(answer, undefined, DEFAULTS.maxResultBytes).messages,
      );
    }
    case 'completion': {
      const { ref, argument } = request;
      const target = ref.type === 'ref/prompt' ? catalog.findPrompt(ref.name) : catalog.findTemplate(ref.uri);
      const what = ref.type === 'ref/prompt' ? `Prompt "${ref.name}"` : `Resource template ${ref.uri}`;
      if (!target || !isOffered(target)) return gone(what);
      if (!target.flowCompletions.has(argument.name)) return { result: completeFrom(target.completions.get(argument.name), argument.value).completion };
      const context = contextOf(path, call, ref.type === 'ref/prompt' ? { prompt: ref.name } : { resource: ref.uri });
      const completion: ContentCall = { kind: 'completion', ref, argument, ...(request.arguments ? { arguments: request.arguments } : {}), context };
      return settled(await begin(flowCalls, call.id, completion, target.timeoutMs), `Completion of "${argument.name}" for ${what}`, (answer) => completeFromFlow(answer, argument.value).completion);
    }
  }
}

/** The item went away between the hub's listing and this request (a redeploy here). */
function gone(what: string): RelayReply {
  return { error: `${what} is not offered by this edge any more (it was redeployed).` };
}

function round(call: RelayedContent): { input?: RoundInput } {
  return call.input !== undefined ? { input: call.input } : {};
}

/** Runs it under the hub's id, a second longer than the hub waits: the hub gives up first and withdraws it. */
async function begin(flowCalls: FlowCalls, id: string, call: ContentCall, timeoutMs: number): Promise<ExecutionOutcome | RelayReply> {
  try {
    return await flowCalls.beginContentAs(id, call, timeoutMs + RELAY_GRACE_MS);
  } catch (error) {
    if (error instanceof CapacityError) return { error: `Server busy: ${error.limit} calls are already running on this edge; retry shortly.` };
    throw error;
  }
}

/**
 * What the flow's outcome sends back: its checked answer, its questions, or why there is none, in
 * the words a local client would get (answerOf, invalidAnswer), which the hub passes on.
 */
function settled(outcome: ExecutionOutcome | RelayReply, what: string, check: (answer: unknown) => unknown): RelayReply | undefined {
  if (!('kind' in outcome)) return outcome;
  if (outcome.kind === 'cancelled') return undefined;
  if (outcome.kind === 'input') return { ask: outcome.ask };
  try {
    return { result: check(answerOf(outcome, what)) };
  } catch (error) {
    const refusal = invalidAnswer(error, what);
    if (refusal instanceof ProtocolError) return { error: refusal.message };
    throw error;
  }
}

/** What the edge's flow sees in `msg.mcp`: the caller as the hub vouched for it, never more. */
function contextOf(path: string, call: RelayedContent, what: { resource: string } | { prompt: string }): ContentContext {
  return {
    ...vouchedCaller(call.caller),
    endpoint: path,
    ...what,
    protocolVersion: call.protocolVersion,
    requestId: call.id,
    relayedFrom: call.hub,
  };
}
