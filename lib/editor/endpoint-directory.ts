import type { ListToolsResult } from '@modelcontextprotocol/server';
import type { ContentCatalog } from '../mcp/content/content-catalog.js';
import type { RecentCall } from '../telemetry/recent-calls.js';
import { clientCommands, type ClientAcceptance, type ClientCommands } from './client-commands.js';
import type { TryItEndpoint } from './try-it.js';

export type EndpointStateName = 'serving' | 'starting' | 'stopped' | 'failed';

/**
 * One endpoint as the editor's MCP sidebar shows it: JSON, no secrets, no call contents. The node's
 * facts as they are, but the counts laid flat and the client acceptance turned into client commands.
 */
export interface EndpointSummary extends Omit<EndpointFacts, 'clients' | 'counts'> {
  readonly tools: number;
  readonly resources: number;
  readonly prompts: number;
  readonly commands: ClientCommands | undefined;
}

/** What the flow-server node tells the directory about its endpoint, read on every request. */
export interface EndpointFacts {
  /** The mcp-flow-server node's id, and the flow (tab) it is on. */
  readonly id: string;
  readonly flow: string | undefined;
  readonly name: string;
  readonly path: string;
  /** Absent when the endpoint's runtime is missing or invalid. */
  readonly url: string | undefined;
  readonly access: 'local' | 'oauth';
  readonly groups: readonly string[];
  /** The sign-in bridge's slug on OAuth endpoints. */
  readonly authSlug: string | undefined;
  readonly clients: ClientAcceptance | undefined;
  readonly state: EndpointStateName;
  readonly counts: { readonly tools: number; readonly resources: number; readonly prompts: number };
  /** Changes whenever the tool list Try it offers changes; undefined unless serving. */
  readonly toolsVersion: string | undefined;
  /** The last failure of this endpoint since its deploy, already in the editor's language. */
  readonly lastError: { readonly message: string; readonly at: number } | undefined;
  readonly recentCalls: readonly RecentCall[];
}

/** The serving endpoint behind an entry: its tool list and the Try-it entry point. */
export interface LiveEndpoint extends TryItEndpoint {
  readonly toolListing: ListToolsResult;
  /** Its resources and prompts, for the sidebar's list of who may use each. */
  readonly content: Pick<ContentCatalog, 'items'>;
}

export interface DirectoryEntry {
  readonly id: string;
  facts(): EndpointFacts;
  /** Undefined unless the endpoint is serving. */
  live(): LiveEndpoint | undefined;
  /** Validated access settings, for the Try-it rule; undefined when the node's settings are invalid. */
  readonly access: { readonly access: 'local' | 'oauth'; readonly groups: readonly string[] } | undefined;
}

/**
 * Every mcp-flow-server of this Node-RED process, as the editor's sidebar lists them. Nodes register
 * when created and leave when closed, so the list is always the deployed one.
 */
export class EndpointDirectory {
  private readonly entries = new Map<string, DirectoryEntry>();

  register(entry: DirectoryEntry): void {
    this.entries.set(entry.id, entry);
  }

  /** Only the entry that registered leaves: a redeploy's new node may have registered already. */
  unregister(entry: DirectoryEntry): void {
    if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id);
  }

  find(id: string): DirectoryEntry | undefined {
    return this.entries.get(id);
  }

  /** Sorted by URL (or path), so the sidebar's order does not change between refreshes. */
  list(): EndpointSummary[] {
    return [...this.entries.values()]
      .map((entry) => summarize(entry.facts()))
      .sort((a, b) => compare(a.url ?? a.path, b.url ?? b.path) || compare(a.id, b.id));
  }
}

export function summarize(facts: EndpointFacts): EndpointSummary {
  return {
    id: facts.id,
    flow: facts.flow,
    name: facts.name,
    path: facts.path,
    url: facts.url,
    access: facts.access,
    groups: facts.groups,
    authSlug: facts.authSlug,
    state: facts.state,
    ...facts.counts,
    toolsVersion: facts.toolsVersion,
    lastError: facts.lastError,
    commands: facts.url === undefined ? undefined : clientCommands({ name: facts.name, url: facts.url, ...(facts.access === 'oauth' && facts.clients ? { oauth: facts.clients } : {}) }),
    recentCalls: facts.recentCalls,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Process-wide, like the tool registry. */
export const endpointDirectory = new EndpointDirectory();
