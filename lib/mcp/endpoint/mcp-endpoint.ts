import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ListToolsResult } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { DEFAULTS } from '../../core/defaults.js';
import { readJsonRpcBody } from '../../http/read-json-rpc-body.js';
import type { InputAsk } from '../../input/input-requests.js';
import type { EdgeRelay, LogDelivery, ProgressDelivery } from '../calls/call-types.js';
import { runRelayedCall, type RelayedCall } from '../calls/relayed-call.js';
import { runRelayedContent, type RelayedContent } from '../content/relayed-content.js';
import type { RelayReply } from '../../edge/edge-agent.js';
import type { LogLine, ProgressReport } from '../call-stream.js';
import type { ContentCatalog } from '../content/content-catalog.js';
import { authInfoFor, type Exchange } from '../exchange.js';
import type { AudienceChange } from '../list-audiences.js';
import type { ListKind } from '../list-changes.js';
import type { ToolCatalog } from '../tool-catalog.js';
import type { ToolDefinition } from '../tool-definition.js';
import type { UpdateDelivery } from './change-streams.js';
import { callFromEditor, type EditorCallResponse } from './editor-call.js';
import { buildEndpointParts, type EndpointParts } from './endpoint-parts.js';
import type { McpEndpointOptions } from './endpoint-options.js';
import { endpointRoutes } from './endpoint-routes.js';
import { Inbound, type RequestRoute } from './request-routes.js';
import { itemsLackingScopes, lackingScopes, type ScopedItem } from './scope-step-up.js';
import { sendJsonRpcError } from '../../http/responses.js';
import { HangUp } from '../../core/hang-up.js';

/**
 * One MCP endpoint, composed once per deploy: its parts (endpoint-parts.ts) each serve one kind of
 * work, and its routes (endpoint-routes.ts) say which part answers which request. A request passes the
 * access check, has its body read once, and is served by the first route that recognises it. This
 * class only admits requests and is the flow-server node's handle on the parts.
 */
export class McpEndpoint {
  readonly path: string;
  private readonly parts: EndpointParts;
  private readonly routes: readonly RequestRoute[];

  constructor(private readonly options: McpEndpointOptions) {
    this.path = options.path;
    this.parts = buildEndpointParts(options);
    this.routes = endpointRoutes(this.parts, { path: options.path, logger: options.logger, directAnswers: options.directAnswers !== false });
  }

  /** The listener route for this endpoint's path. */
  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // The SDK's own cancellation does not fire for a stateless client that simply hangs up, so the
    // connection itself tells the broker to release the call. Listened to from the first byte: a
    // hang-up during the access check (a token looked up in a slow Redis) happens before any later
    // listener could hear it, and the call would then hold its slot until the tool's time limit.
    const disconnect = new HangUp();
    res.once('close', () => {
      if (!res.writableFinished) disconnect.abort();
    });
    const decision = await this.options.access.check(req);
    if (!decision.allowed) {
      req.resume();
      decision.reject(res);
      if (decision.refusal && isToolCall(decision.parsedBody)) {
        this.options.onCallFinished?.({ endpoint: this.path, tool: 'unknown', mode: 'unknown', outcome: decision.refusal, caller: {}, durationMs: 0, responseBytes: 0 });
      }
      return;
    }
    // What this caller may see of the deploy: one lookup, the views themselves are built once per deploy.
    const exchange: Exchange = { caller: decision.caller, disconnected: disconnect, response: res, view: this.parts.deployed.viewFor(decision.caller) };
    // Read and parse the body once, whatever the access mode (OAuth already had to).
    let body = decision.parsedBody;
    if (body === undefined && req.method === 'POST') {
      const read = await readJsonRpcBody(req, DEFAULTS.maxRequestBodyBytes);
      if ('reject' in read) return read.reject(res);
      body = read.body;
    }
    // Items with Required scopes: a token without them gets the step-up challenge before anything runs.
    if (this.parts.deployed.scoped && decision.caller.editor === undefined) {
      const lacking = itemsLackingScopes(body, exchange.view!, decision.caller);
      if (lacking.length > 0) return this.refuseScope(res, decision.caller, lacking);
    }
    const inbound = new Inbound(req, res, body, exchange, authInfoFor(exchange, decision.caller.client ?? 'local'));
    for (const candidate of this.routes) {
      let found = candidate.recognise(inbound);
      // Awaited only where a recogniser is asynchronous (the SDK's era check): the hot kinds cost no extra turn.
      if (found instanceof Promise) found = await found;
      if (found !== undefined) return candidate.serve(inbound, found);
    }
  };

  /** The step-up challenge, counted as each refused item's outcome (telemetry, and nothing else runs). */
  private refuseScope(res: ServerResponse, caller: CallerIdentity, items: readonly ScopedItem[]): void {
    const scopes = lackingScopes(items);
    // Only OAuth access issues scopes; any other policy has no challenge to give, and refuses plainly.
    if (this.options.access.refuseScope) this.options.access.refuseScope(res, caller, scopes);
    else sendJsonRpcError(res, 403, -32001, `Insufficient scope: this request needs ${scopes.join(' ')}.`);
    for (const item of items) {
      const finished = { endpoint: this.path, outcome: 'insufficient_scope' as const, caller, durationMs: 0, responseBytes: 0 };
      if (item.kind === 'tool') this.options.onCallFinished?.({ ...finished, tool: item.name, mode: 'unknown' });
      else this.options.onContentFinished?.({ ...finished, kind: item.kind, name: item.name, mode: 'unknown' });
    }
  }

  // What the last deploy gave, and what it changed.

  /** The tools this endpoint serves right now (the last deploy's, plus live edge tools on a hub). */
  get tools(): ToolCatalog {
    return this.parts.deployed.tools;
  }

  get toolCount(): number {
    return this.parts.deployed.tools.size;
  }

  setCatalog(catalog: ToolCatalog): void {
    this.parts.deployed.tools = catalog;
  }

  /** The tool `name` as this deploy serves it, if it does. */
  toolNamed(name: string): ToolDefinition | undefined {
    return this.parts.deployed.tools.find(name);
  }

  /** What `tools/list` shows right now (the catalog of the last deploy). */
  get toolListing(): ListToolsResult {
    return this.parts.deployed.tools.listResult;
  }

  get resourceCount(): number {
    return this.parts.deployed.content.resourceCount;
  }

  get promptCount(): number {
    return this.parts.deployed.content.promptCount;
  }

  /** The resources and prompts this deploy serves (the whole deploy's, not one caller's view). */
  get content(): ContentCatalog {
    return this.parts.deployed.content;
  }

  /** Resources and prompts of this deploy; rebuilt with the tool catalog, never per request. */
  setContent(content: ContentCatalog): void {
    // The shared 2025-era server declares its capabilities when built.
    if (this.parts.deployed.setContent(content)) this.parts.legacy.rebuild();
  }

  /**
   * Tells the open streams that asked for them that these lists changed: after a deploy here, each
   * caller only of lists that changed in its own view; after one `elsewhere` (another instance), each
   * caller among the audiences that instance named.
   */
  listsChanged(kinds: readonly ListKind[], elsewhere?: { readonly audiences: AudienceChange | undefined }): void {
    this.parts.streams.listsChanged(kinds, elsewhere);
  }

  /**
   * A flow's news that a resource changed, for the open streams that subscribed to its URI. The URI
   * must name a resource this endpoint serves (a fixed URI, or one a template matches).
   */
  resourceUpdated(uri: string): UpdateDelivery {
    return this.parts.deployed.content.findResource(uri) ? this.parts.streams.resourceUpdated(uri) : 'unknown';
  }

  /**
   * A hub's site says one of its resources changed (`uri` already the hub's): told to the streams that
   * watch it only when the URI reaches that site's resource here, so no site speaks for another's or a local one.
   */
  relayedResourceUpdated(site: string, uri: string): UpdateDelivery {
    return this.parts.deployed.content.findResource(uri)?.resource.relay?.site === site ? this.parts.streams.resourceUpdated(uri) : 'unknown';
  }

  // The flow's messages about pending calls (lib/mcp/endpoint-controller.ts routes them here).

  /** The flow's answer for one call; 'unknown' when nothing waits for that executionId. */
  settle(executionId: string, answer: { result?: unknown; error?: unknown }) {
    return this.parts.flowCalls.settle(executionId, answer);
  }

  /** The flow asks the client instead of answering (`mcp-tool-input`); 'unknown' when nothing waits. */
  ask(executionId: string, ask: InputAsk) {
    return this.parts.flowCalls.ask(executionId, ask);
  }

  progress(executionId: string, report: ProgressReport): ProgressDelivery {
    return this.parts.flowCalls.progress(executionId, report);
  }

  log(executionId: string, line: LogLine): LogDelivery {
    return this.parts.flowCalls.log(executionId, line);
  }

  /** One `tools/call` from the editor's sidebar (Try it), as a client's call minus listener and access check. */
  callFromEditor(name: string, args: Record<string, unknown>, caller: CallerIdentity, signal: AbortSignal): Promise<EditorCallResponse> {
    return callFromEditor(this.parts.modern, this.path, name, args, caller, signal);
  }

  // Edge relaying (lib/edge): the hub's side, then the edge's.

  /** Makes this a hub endpoint: calls to edge tools (those with `relay`) go through `edges`. */
  relayTo(edges: EdgeRelay | undefined): void {
    this.parts.flowCalls.edges = edges;
  }

  /** An edge site went away: its pending calls end now with `message`, not at their time limits. */
  failRelayed(site: string, message: string): void {
    this.parts.flowCalls.failRelayed(site, message);
  }

  /** One round of a call a hub relayed to this edge endpoint; undefined when the hub withdrew it (nobody waits). */
  runRelayed(call: RelayedCall): Promise<RelayReply | undefined> {
    return runRelayedCall(this.path, this.parts.deployed.tools, this.parts.flowCalls, call);
  }

  /** A read, prompt or completion a hub relayed to this edge endpoint; undefined when the hub withdrew it. */
  runRelayedContent(call: RelayedContent): Promise<RelayReply | undefined> {
    return runRelayedContent(this.path, this.parts.deployed.content, this.parts.flowCalls, call);
  }

  /** The hub withdrew a relayed call: the flow gets `mcp-tool-cancel` (reason `cancelled`). */
  withdrawRelayed(executionId: string): void {
    this.parts.flowCalls.broker.cancel(executionId);
  }

  /**
   * Fails every pending call with `reason` and tears down in-flight modern exchanges; open
   * `subscriptions/listen` streams get the graceful end (a result for the listen request), so their
   * clients know to listen again rather than treat it as a dropped connection.
   */
  async stop(reason: string): Promise<number> {
    const failed = this.parts.flowCalls.stopAll(reason);
    // Let the "stopped" results reach their clients before in-flight exchanges are torn down.
    if (failed > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    this.parts.relay.stop();
    await Promise.all([this.parts.modern.close(), this.parts.legacy.close(), this.parts.tasks?.stop()]);
    return failed;
  }
}

function isToolCall(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => (message as { method?: unknown } | null)?.method === 'tools/call');
}
