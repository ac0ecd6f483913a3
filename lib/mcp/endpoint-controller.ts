import type { InputAsk } from '../input/input-requests.js';
import { requestStateSealer } from '../input/state-key.js';
import { resolveAccess, type AccessDependencies, type ResolvedAccess } from '../access/create-access-policy.js';
import type { FlowServerSettings } from '../config/flow-server-config.js';
import { endpointUrl, type RuntimeSettings } from '../config/runtime-config.js';
import { McpPaletteError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ExecutionRequest } from '../execution/broker.js';
import type { MountedRoute, RouteSite } from '../http/route-site.js';
import type { Store } from '../storage/store.js';
import type { CancelReason } from '../execution/cancellation.js';
import type { LogLine, ProgressReport } from './call-stream.js';
import type { CallFinished, ExecutionContext, LogDelivery, ProgressDelivery } from './calls/call-types.js';
import type { UpdateDelivery } from './endpoint/change-streams.js';
import type { McpEndpointOptions } from './endpoint/endpoint-options.js';
import { EndpointEdges } from './endpoint-edges.js';
import { McpEndpoint } from './endpoint/mcp-endpoint.js';
import { relayListChanges, type ListChangeRelay } from './list-change-relay.js';
import { audiencesOf, servedAudiences } from './list-audiences.js';
import { fingerprintLists, servedLists } from './list-changes.js';
import { securitySchemesFor } from './security-schemes.js';
import { refuseUnkeptAccess } from './deploy-access-checks.js';
import type { ToolCatalog } from './tool-catalog.js';
import type { ToolDefinition } from './tool-definition.js';
import type { ToolRegistry } from './tool-registry.js';
import type { ContentCall, ContentFinished } from './content/content-types.js';
import type { ContentRegistry } from './content/content-registry.js';
import { ContentCatalog } from './content/content-catalog.js';

export type EndpointState =
  | { readonly state: 'stopped' }
  | { readonly state: 'starting' }
  | { readonly state: 'serving'; readonly url: string; readonly tools: number; readonly resources: number; readonly prompts: number }
  | { readonly state: 'failed'; readonly error: McpPaletteError };

export interface EndpointControllerOptions {
  readonly settings: FlowServerSettings;
  readonly runtime: RuntimeSettings;
  /** Where the endpoint is served: a listener of its own (by port) or Node-RED's own server. */
  readonly site: RouteSite;
  readonly tools: ToolRegistry;
  /** Tools the palette itself answers on this endpoint (get_flow on the admin endpoint). */
  readonly builtInTools?: readonly ToolDefinition[];
  readonly access: AccessDependencies;
  readonly logger: Logger;
  readonly execute: (request: ExecutionRequest, context: ExecutionContext) => void;
  readonly onAbandoned?: (executionId: string, reason: CancelReason, context: ExecutionContext) => void;
  /** Resources and prompts declared for this endpoint (mcp-resource, mcp-prompt nodes). */
  readonly content?: ContentRegistry;
  readonly executeContent?: (executionId: string, call: ContentCall) => void;
  /** Where task records live and the endpoint's task limits (see McpEndpointOptions). */
  readonly tasks?: McpEndpointOptions['tasks'];
  readonly onContentAbandoned?: (executionId: string, reason: CancelReason, call: ContentCall) => void;
  readonly onContentFinished?: (event: ContentFinished) => void;
  readonly measureContentResponses?: () => boolean;
  readonly onCallFinished?: (event: CallFinished) => void;
  readonly measureResponses?: () => boolean;
  readonly onState: (state: EndpointState) => void;
  /** The endpoint's shared storage: with Redis, list-changed news reaches the other instances' clients. */
  readonly changes?: Store;
  /** The endpoint's own storage node's store: edge relaying (an edge site, or a hub's sites) goes through it. */
  readonly edgeStore?: Store;
}


/**
 * The life of one flow-server's endpoint: start (access policy, catalog, route on the shared
 * listener), refresh the catalog after each deploy, stop (fail pending calls, release the route).
 * Operations are queued so a `restart` command racing a redeploy cannot interleave.
 */
export class EndpointController {
  private endpoint: McpEndpoint | undefined;
  private route: MountedRoute | undefined;
  private access: ResolvedAccess | undefined;
  private relay: ListChangeRelay | undefined;
  /** On a hub: the live edge sites and their tools. On an edge: what announces this endpoint's tools. */
  private edges: EndpointEdges | undefined;
  private queue: Promise<void> = Promise.resolve();
  private current: EndpointState = { state: 'stopped' };
  private readonly options: EndpointControllerOptions;

  constructor(options: EndpointControllerOptions) {
    this.options = options;
  }

  get state(): EndpointState {
    return this.current;
  }

  /** The serving endpoint (the editor's sidebar lists and tries its tools); undefined unless serving. */
  get liveEndpoint(): McpEndpoint | undefined {
    return this.endpoint;
  }

  /** The endpoint's validated settings (name, path, access, groups). */
  get settings(): FlowServerSettings {
    return this.options.settings;
  }

  /** The endpoint's path (after defaults), as clients and audit lines name it. */
  get path(): string {
    return this.options.settings.path;
  }

  /** Starts if stopped or failed; a serving endpoint only rebuilds its catalog. */
  start(): Promise<void> {
    return this.enqueue(async () => {
      if (this.endpoint) {
        this.refreshCatalog();
        return;
      }
      await this.open();
    });
  }

  stop(reason: string): Promise<void> {
    return this.enqueue(() => this.close(reason));
  }

  restart(reason: string): Promise<void> {
    return this.enqueue(async () => {
      await this.close(reason);
      await this.open();
    });
  }

  /** The tool set changes only on deploy; the catalog is rebuilt then, never per request. */
  refreshCatalog(): void {
    if (!this.endpoint) return;
    try {
      this.loadCatalogs(this.endpoint);
    } catch (error) {
      // A deploy gave this endpoint an item it cannot serve as declared (groups on a Local endpoint): stop, fail closed.
      const failure = error instanceof McpPaletteError ? error : new McpPaletteError('start_failed', describeError(error), { reason: describeError(error) });
      void this.enqueue(async () => {
        await this.close(failure.message);
        this.report({ state: 'failed', error: failure });
      });
      return;
    }
    this.report(this.serving(this.endpoint));
  }

  settle(executionId: string, answer: { result?: unknown; error?: unknown }): 'settled' | 'unknown' {
    return this.endpoint?.settle(executionId, answer) ?? 'unknown';
  }

  /** A flow's `mcp-tool-input`: the call's round ends with these questions for its client. */
  ask(executionId: string, ask: InputAsk): 'settled' | 'unknown' {
    return this.endpoint?.ask(executionId, ask) ?? 'unknown';
  }

  progress(executionId: string, report: ProgressReport): ProgressDelivery {
    return this.endpoint?.progress(executionId, report) ?? 'unknown';
  }

  log(executionId: string, line: LogLine): LogDelivery {
    return this.endpoint?.log(executionId, line) ?? 'unknown';
  }

  /** A flow's `mcp-resource-updated`; `stopped` when the endpoint is not serving. */
  resourceUpdated(uri: string): UpdateDelivery | 'stopped' {
    const delivery = this.endpoint?.resourceUpdated(uri) ?? 'stopped';
    // On an edge, hubs hear it too: their clients may watch the resource when nobody here does.
    return this.edges?.resourceUpdated(uri) && delivery === 'unwatched' ? 'sent' : delivery;
  }

  /**
   * Built on deploy, and on a hub when an edge site's tools change: the schemes are the same for every
   * tool of the endpoint. Edge tools never shadow a tool declared here: such a one is left out, and said so.
   */
  private catalog(said: Set<string>): ToolCatalog {
    const { settings, tools, builtInTools, access } = this.options;
    const schemes = securitySchemesFor(settings.access, access.auth?.scopes);
    return tools.catalogFor(settings.path, builtInTools, schemes, this.edges?.tools() ?? [], (tool, reason) => this.edges?.refused(tool, reason, said));
  }

  private get url(): string {
    return endpointUrl(this.options.runtime, this.options.settings.path);
  }

  private async open(): Promise<void> {
    const { settings, runtime } = this.options;
    this.report({ state: 'starting' });
    let endpoint: McpEndpoint | undefined;
    try {
      // Edge relaying crosses Node-RED processes only through the endpoint's own storage: without one
      // the fields would be ignored, and a hub would serve no edge tools without saying why.
      if (EndpointEdges.wanted(settings) && !this.options.edgeStore) {
        throw new McpPaletteError('edge_needs_storage', 'edge relaying needs the endpoint to have a storage (Redis)');
      }
      this.access = await resolveAccess(settings, runtime, this.options.site, this.options.access);
      endpoint = new McpEndpoint(endpointOptions(this.options, this.access));
      this.relay = this.openRelay(endpoint);
      this.loadCatalogs(endpoint);
      // Local access has no sign-in: it is served only where nobody else can reach it.
      this.route = await this.options.site.mount(settings.path, endpoint.handle, {
        loopbackOnly: settings.access === 'local',
        onYield: (error) => void this.yieldTo(error),
      });
      this.endpoint = endpoint;
      // After the endpoint is set: an edge site heard from at once must find it to refresh the catalog.
      this.openEdges(endpoint);
      this.report(this.serving(endpoint));
    } catch (error) {
      this.relay?.close();
      this.relay = undefined;
      await this.closeEdges();
      // The endpoint subscribes to its storage when built and may already be mounted: a failed start
      // must not leave a subscription, or a route that answers, behind it.
      this.endpoint = undefined;
      await endpoint?.stop('the endpoint could not start');
      await this.route?.unmount();
      this.route = undefined;
      await this.releaseAccess();
      // Listen errors arrive as McpPaletteError already; anything else failed while setting up.
      const failure = error instanceof McpPaletteError ? error : new McpPaletteError('start_failed', describeError(error), { reason: describeError(error) });
      this.report({ state: 'failed', error: failure });
    }
  }

  /** A later deploy gave the path to a route of Node-RED's: stop, and say why in the status. */
  private yieldTo(error: McpPaletteError): Promise<void> {
    return this.enqueue(async () => {
      if (!this.endpoint) return;
      await this.close(error.message);
      this.report({ state: 'failed', error });
    });
  }

  private loadCatalogs(endpoint: McpEndpoint): void {
    // Edge items refused at this build (a name or URI declared here): each said once while it lasts.
    const said = new Set<string>();
    const tools = this.catalog(said);
    const declared = this.options.content?.catalogFor(endpoint.path);
    const content = this.edges ? this.edges.withEdgeContent(declared, said) : declared;
    this.edges?.endCatalog(said);
    refuseUnkeptAccess(this.options.settings, this.options.access.auth, { tools, content });
    endpoint.setCatalog(tools);
    if (content) endpoint.setContent(content);
    this.edges?.announce();
    // Compared with what this endpoint served before, even before a full deploy replaced its node:
    // open streams here and on the other instances hear only about lists that really changed.
    const served = content ?? ContentCatalog.empty;
    const changed = servedLists.update(this.servedKey, fingerprintLists(tools, served));
    // Whom each change concerns, for the other instances to judge their streams as this one does.
    const audiences = servedAudiences.update(this.servedKey, audiencesOf(tools, served), changed);
    if (changed.length === 0) return;
    endpoint.listsChanged(changed);
    this.relay?.announce(changed, audiences);
  }

  private openEdges(endpoint: McpEndpoint): void {
    const store = this.options.edgeStore;
    if (!store || !EndpointEdges.wanted(this.options.settings)) return;
    this.edges = new EndpointEdges({ settings: this.options.settings, store, logger: this.options.logger, onToolsChanged: () => this.refreshCatalog() });
    this.edges.open(endpoint);
  }

  private async closeEdges(): Promise<void> {
    const edges = this.edges;
    this.edges = undefined;
    await edges?.close();
  }

  /** Runtime address and path: the same path on another runtime is another endpoint. */
  private get servedKey(): string {
    const { runtime, settings } = this.options;
    return `${runtime.host}:${runtime.port}${settings.path}`;
  }

  /**
   * Across instances only through Redis: memory storage is one process, where the endpoint has
   * already told its own clients. The key prefix of the storage keeps deployments apart.
   */
  private openRelay(endpoint: McpEndpoint): ListChangeRelay | undefined {
    const store = this.options.changes;
    if (store?.mode !== 'redis') return undefined;
    try {
      return relayListChanges({ store, namespace: 'endpoints', path: endpoint.path, logger: this.options.logger, deliver: (kinds, audiences) => endpoint.listsChanged(kinds, { audiences }) });
    } catch (error) {
      this.options.logger.warn(`list changes on ${endpoint.path} reach only this instance's clients: ${describeError(error)}`);
      return undefined;
    }
  }

  private serving(endpoint: McpEndpoint): EndpointState {
    return { state: 'serving', url: this.url, tools: endpoint.toolCount, resources: endpoint.resourceCount, prompts: endpoint.promptCount };
  }

  private async close(reason: string): Promise<void> {
    const endpoint = this.endpoint;
    const route = this.route;
    this.endpoint = undefined;
    this.route = undefined;
    this.relay?.close();
    this.relay = undefined;
    // An edge says goodbye before its endpoint fails its calls, so hubs end theirs at once too.
    await this.closeEdges();
    if (endpoint) {
      const failed = await endpoint.stop(reason);
      if (failed > 0) this.options.logger.warn(`${failed} pending tool call(s) on ${endpoint.path} ended: ${reason}`);
    }
    await route?.unmount();
    await this.releaseAccess();
    this.report({ state: 'stopped' });
  }

  private async releaseAccess(): Promise<void> {
    const access = this.access;
    this.access = undefined;
    await access?.release();
  }

  private report(state: EndpointState): void {
    this.current = state;
    this.options.onState(state);
  }

  private enqueue(operation: () => Promise<void>): Promise<void> {
    const next = this.queue.then(operation, operation);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** What the endpoint of one start is built from: the node's settings and its way to the flow. */
function endpointOptions(options: EndpointControllerOptions, access: ResolvedAccess): McpEndpointOptions {
  const { settings, logger } = options;
  return {
    serverName: settings.serverName,
    path: settings.path,
    access: access.policy,
    maxInFlight: settings.maxConcurrent,
    maxStreams: settings.maxStreams,
    logger,
    execute: options.execute,
    ...(options.onAbandoned ? { onAbandoned: options.onAbandoned } : {}),
    ...(options.executeContent ? { executeContent: options.executeContent } : {}),
    ...(options.tasks ? { tasks: options.tasks } : {}),
    ...(options.onContentAbandoned ? { onContentAbandoned: options.onContentAbandoned } : {}),
    ...(options.onContentFinished ? { onContentFinished: options.onContentFinished } : {}),
    ...(options.measureContentResponses ? { measureContentResponses: options.measureContentResponses } : {}),
    ...(options.onCallFinished ? { onCallFinished: options.onCallFinished } : {}),
    ...(options.measureResponses ? { measureResponses: options.measureResponses } : {}),
    requestStates: requestStateSealer(),
    // A 2025-era client's answer to a flow's question may reach another instance: it crosses where list changes do.
    ...(options.changes ? { answersStore: options.changes } : {}),
  };
}
