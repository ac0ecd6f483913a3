import { EdgeAgent } from '../edge/edge-agent.js';
import { EdgeHub } from '../edge/edge-hub.js';
import type { FlowServerSettings } from '../config/flow-server-config.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../storage/store.js';
import type { McpEndpoint } from './endpoint/mcp-endpoint.js';
import type { ToolDefinition } from './tool-definition.js';
import { ContentCatalog } from './content/content-catalog.js';
import type { PromptDefinition } from './content/prompt-definition.js';
import type { ResourceDefinition } from './content/resource-definition.js';

export interface EndpointEdgesOptions {
  readonly settings: FlowServerSettings;
  /** The endpoint's own storage node's store: relaying crosses Node-RED processes only through it. */
  readonly store: Store;
  readonly logger: Logger;
  /** A hub's sites changed their tools: the endpoint's catalog is built again. */
  readonly onToolsChanged: () => void;
}

/**
 * Edge relaying of one serving endpoint: an edge announces its tools under its site name and runs
 * the calls hubs send it; a hub serves the tools of its sites. Both need Redis (the storage node's),
 * since they are different Node-RED processes; memory storage relays only within this process,
 * which is what the tests of one process use.
 */
export class EndpointEdges {
  private hub: EdgeHub | undefined;
  private agent: EdgeAgent | undefined;
  /** Edge tools refused at the last catalog build (`site tool reason`), so each clash is said once. */
  private saidClashes: ReadonlySet<string> = new Set();

  constructor(private readonly options: EndpointEdgesOptions) {}

  /** Whether the settings ask for relaying at all (an edge site, or a hub's sites). */
  static wanted(settings: FlowServerSettings): boolean {
    return settings.edges.site !== undefined || settings.edges.hubSites.length > 0;
  }

  open(endpoint: McpEndpoint): void {
    const { settings, store, logger } = this.options;
    const { site, hubSites, naming, uriNaming, maxPendingPerSite } = settings.edges;
    if (hubSites.length > 0) {
      this.hub = new EdgeHub({
        store,
        sites: hubSites,
        siteGroups: settings.edges.siteGroups,
        naming,
        uriNaming,
        maxPendingPerSite,
        endpoint: settings.path,
        logger,
        onToolsChanged: this.options.onToolsChanged,
        deliver: (executionId, result) => endpoint.settle(executionId, { result }),
        failContent: (executionId, message) => void endpoint.settle(executionId, { error: message }),
        resourceUpdated: (fromSite, uri) => endpoint.relayedResourceUpdated(fromSite, uri),
        failSite: (failed, message) => endpoint.failRelayed(failed, message),
        ask: (executionId, ask) => endpoint.ask(executionId, ask),
        progress: (executionId, report) => void endpoint.progress(executionId, report),
        log: (executionId, line) => void endpoint.log(executionId, line),
      });
      endpoint.relayTo(this.hub);
    }
    if (site !== undefined) {
      this.agent = new EdgeAgent({
        store,
        site,
        logger,
        catalog: () => endpoint.tools,
        content: () => endpoint.content,
        run: (call, notes) => endpoint.runRelayed({ ...call, notes }),
        runContent: (call) => endpoint.runRelayedContent(call),
        withdraw: (executionId) => endpoint.withdrawRelayed(executionId),
      });
    }
  }

  /** The live tools of a hub's sites (none on an edge or before `open`). */
  tools(): readonly ToolDefinition[] {
    return this.hub?.tools() ?? [];
  }

  /**
   * The endpoint's resources and prompts with those of a hub's live sites: what is declared here
   * keeps its URI or name, and an edge item that would take one is left out (said once, as for tools).
   */
  withEdgeContent(declared: ContentCatalog | undefined, said: Set<string>): ContentCatalog | undefined {
    const edge = this.hub?.content();
    if (!edge) return declared;
    // Empty, not undefined, once the last site's items are gone: they must leave the endpoint too.
    if (edge.resources.length === 0 && edge.prompts.length === 0) return declared ?? ContentCatalog.empty;
    const own = declared?.items ?? { resources: [], prompts: [] };
    const uris = new Set(own.resources.map((resource) => resource.uri));
    const names = new Set(own.prompts.map((prompt) => prompt.name));
    const kept = <T extends ResourceDefinition | PromptDefinition>(item: T, key: string, taken: ReadonlySet<string>): boolean => {
      if (!taken.has(key)) return true;
      this.say(`${item.relay?.site} ${key} taken`, said, `edge ${'uri' in item ? 'resource' : 'prompt'} ${key} of site ${item.relay?.site} was refused on ${this.options.settings.path}: one of that ${'uri' in item ? 'URI' : 'name'} is declared here`);
      return false;
    };
    return new ContentCatalog(
      [...own.resources, ...edge.resources.filter((resource) => kept(resource, resource.uri, uris))],
      [...own.prompts, ...edge.prompts.filter((prompt) => kept(prompt, prompt.name, names))],
    );
  }

  /** An edge flow's `mcp-resource-updated`: hubs hear it when the resource is one this edge offers. */
  resourceUpdated(uri: string): boolean {
    return this.agent?.resourceUpdated(uri) ?? false;
  }

  /** An edge tells hubs its tools changed (after each catalog build). */
  announce(): void {
    this.agent?.announce();
  }

  /**
   * Says why an edge tool was left out of the catalog, once while the clash lasts (an edge announces
   * every 2 s, and the catalog is built again at each change). Call `endCatalog` after each build.
   */
  refused(tool: ToolDefinition, reason: 'taken' | 'claimed_twice', said: Set<string>): void {
    const why = reason === 'taken' ? 'a tool of that name is declared here' : 'another edge tool has the same name on this hub, so neither is served';
    this.say(`${tool.relay?.site} ${tool.name} ${reason}`, said, `edge tool ${tool.name} of site ${tool.relay?.site} was refused on ${this.options.settings.path}: ${why}`);
  }

  private say(key: string, said: Set<string>, line: string): void {
    const before = said.has(key) || this.saidClashes.has(key);
    said.add(key);
    if (!before) this.options.logger.warn(line);
  }

  endCatalog(said: ReadonlySet<string>): void {
    this.saidClashes = said;
  }

  /** An edge says goodbye first, so hubs end its calls at once rather than at the liveness window. */
  async close(): Promise<void> {
    this.hub?.close();
    this.hub = undefined;
    await this.agent?.close();
    this.agent = undefined;
  }
}
