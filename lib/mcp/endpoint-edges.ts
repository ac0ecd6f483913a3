import { EdgeAgent } from '../edge/edge-agent.js';
import { EdgeHub } from '../edge/edge-hub.js';
import type { FlowServerSettings } from '../config/flow-server-config.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../storage/store.js';
import type { McpEndpoint } from './endpoint/mcp-endpoint.js';
import type { ToolDefinition } from './tool-definition.js';

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
    const { site, hubSites, naming, maxPendingPerSite } = settings.edges;
    if (hubSites.length > 0) {
      this.hub = new EdgeHub({
        store,
        sites: hubSites,
        siteGroups: settings.edges.siteGroups,
        naming,
        maxPendingPerSite,
        endpoint: settings.path,
        logger,
        onToolsChanged: this.options.onToolsChanged,
        deliver: (executionId, result) => endpoint.settle(executionId, { result }),
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
        run: (call, notes) => endpoint.runRelayed({ ...call, notes }),
        withdraw: (executionId) => endpoint.withdrawRelayed(executionId),
      });
    }
  }

  /** The live tools of a hub's sites (none on an edge or before `open`). */
  tools(): readonly ToolDefinition[] {
    return this.hub?.tools() ?? [];
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
    const key = `${tool.relay?.site} ${tool.name} ${reason}`;
    const before = said.has(key) || this.saidClashes.has(key);
    said.add(key);
    if (before) return;
    const why = reason === 'taken' ? 'a tool of that name is declared here' : 'another edge tool has the same name on this hub, so neither is served';
    this.options.logger.warn(`edge tool ${tool.name} of site ${tool.relay?.site} was refused on ${this.options.settings.path}: ${why}`);
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
