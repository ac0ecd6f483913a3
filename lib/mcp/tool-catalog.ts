import { SERVER_INFO_META_KEY, type ListToolsResult, type Tool } from '@modelcontextprotocol/server';
import type { Admits } from '../access/access-views.js';
import { DEFAULTS } from '../core/defaults.js';
import { PagedList } from './paged-list.js';
import type { SecurityScheme } from './security-schemes.js';
import type { ToolDefinition } from './tool-definition.js';

/**
 * The tools one endpoint serves, built once per deploy: `tools/list` returns a prebuilt result and
 * `tools/call` is one Map lookup, so neither costs more with 500 tools than with one.
 */
export class ToolCatalog {
  /** The first page of `tools/list` (everything, when it fits on one page). */
  readonly listResult: ListToolsResult;
  private readonly pages: PagedList<Tool, ListToolsResult>;
  private readonly byName: ReadonlyMap<string, ToolDefinition>;
  /** The whole deploy's catalog, when this one is what some callers may see of it (`restrictedTo`). */
  private readonly whole: ToolCatalog | undefined;

  /** `securitySchemes` (the endpoint's access mode) join every tool's listing here, once per deploy. */
  constructor(
    definitions: readonly ToolDefinition[],
    private readonly securitySchemes?: readonly SecurityScheme[],
    private readonly pageSize: number = DEFAULTS.listPageSize,
    whole?: ToolCatalog,
  ) {
    const sorted = [...definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.byName = new Map(sorted.map((definition) => [definition.name, definition]));
    this.whole = whole;
    const tools = sorted.map((definition) => (securitySchemes ? withSecuritySchemes(definition.listing, schemesOf(definition, securitySchemes)) : definition.listing));
    this.pages = new PagedList('tools/list', tools, (tool) => tool.name, (page, nextCursor) => (nextCursor ? { tools: page as Tool[], nextCursor } : { tools: page as Tool[] }), pageSize);
    this.listResult = this.pages.first;
  }

  private listHead: Buffer | undefined;

  /**
   * The first page's whole JSON-RPC answer up to its id, as bytes, encoded once per deploy on first
   * use: a plain 2025-era tools/list costs a write of these bytes and of its id, not an encoding of the list.
   */
  get listAnswerHead(): Buffer {
    return (this.listHead ??= Buffer.from(`{"result":${JSON.stringify(this.listResult)},"jsonrpc":"2.0","id":`));
  }

  private modernListHead: Buffer | undefined;

  /**
   * The same for a plain 2026-07-28 tools/list, as the SDK's encoder writes that revision's first page:
   * a complete result with the SDK's default cache hint (nothing cached, private) and the server's
   * identity. `serverInfo` is the endpoint's, the same for every request.
   */
  modernListAnswerHead(serverInfo: { readonly name: string; readonly version: string }): Buffer {
    const result = { ...this.listResult, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
    return (this.modernListHead ??= Buffer.from(`{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":`));
  }

  /** The `tools/list` page after `cursor`; throws -32602 for a cursor this endpoint did not issue. */
  page(cursor: unknown): ListToolsResult {
    return this.pages.page(cursor);
  }

  /** Every tool as listed, across all pages. */
  get listings(): readonly Tool[] {
    return this.pages.all;
  }

  get size(): number {
    return this.byName.size;
  }

  find(name: string): ToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** Whether some tool has *Required scopes*. */
  get scoped(): boolean {
    return (this.anyScoped ??= [...this.byName.values()].some((tool) => tool.requiredScopes !== undefined));
  }

  private anyScoped: boolean | undefined;

  /** Every tool's *Allowed groups* (undefined for the unrestricted ones). */
  get restrictions(): Iterable<readonly string[] | undefined> {
    return [...this.byName.values()].map((tool) => tool.allowedGroups);
  }

  /** The tools a caller `admits` lets in, as a catalog of their own (built once per view, not per request). */
  restrictedTo(admits: Admits): ToolCatalog {
    const seen = [...this.byName.values()].filter((tool) => admits(tool.allowedGroups));
    return new ToolCatalog(seen, this.securitySchemes, this.pageSize, this);
  }

  /**
   * Whether `name` is a tool of this deploy that this view leaves out. Only telemetry and the audit
   * log learn it: the caller is answered exactly as for a name nobody serves.
   */
  withholds(name: string): boolean {
    return this.whole !== undefined && !this.byName.has(name) && this.whole.find(name) !== undefined;
  }

  static readonly empty = new ToolCatalog([]);
}

/**
 * A tool's own schemes: the endpoint's, with the tool's *Required scopes* added to its OAuth scopes,
 * so a client can ask for them up front (ChatGPT's apps read them per tool).
 */
function schemesOf(tool: ToolDefinition, schemes: readonly SecurityScheme[]): readonly SecurityScheme[] {
  const required = tool.requiredScopes;
  if (required === undefined) return schemes;
  return schemes.map((scheme) => (scheme.type === 'oauth2' ? { type: 'oauth2' as const, scopes: [...new Set([...scheme.scopes, ...required])] } : scheme));
}

/**
 * Both places clients look: the tool's own `securitySchemes`, and `_meta.securitySchemes`, which
 * ChatGPT's apps read and which survives clients whose SDK drops tool fields it does not know.
 */
function withSecuritySchemes(tool: Tool, securitySchemes: readonly SecurityScheme[]): Tool {
  return { ...tool, securitySchemes, _meta: { ...tool._meta, securitySchemes } } as Tool;
}
