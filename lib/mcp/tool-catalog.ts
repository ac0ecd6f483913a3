import { SERVER_INFO_META_KEY, type ListToolsResult, type Tool } from '@modelcontextprotocol/server';
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

  /** `securitySchemes` (the endpoint's access mode) join every tool's listing here, once per deploy. */
  constructor(definitions: readonly ToolDefinition[], securitySchemes?: readonly SecurityScheme[], pageSize: number = DEFAULTS.listPageSize) {
    const sorted = [...definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.byName = new Map(sorted.map((definition) => [definition.name, definition]));
    const listing = securitySchemes ? (tool: Tool) => withSecuritySchemes(tool, securitySchemes) : (tool: Tool) => tool;
    const tools = sorted.map((definition) => listing(definition.listing));
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

  static readonly empty = new ToolCatalog([]);
}

/**
 * Both places clients look: the tool's own `securitySchemes`, and `_meta.securitySchemes`, which
 * ChatGPT's apps read and which survives clients whose SDK drops tool fields it does not know.
 */
function withSecuritySchemes(tool: Tool, securitySchemes: readonly SecurityScheme[]): Tool {
  return { ...tool, securitySchemes, _meta: { ...tool._meta, securitySchemes } } as Tool;
}
