import type { ListToolsResult, Tool } from '@modelcontextprotocol/server';
import type { SecurityScheme } from './security-schemes.js';
import type { ToolDefinition } from './tool-definition.js';

/**
 * The tools one endpoint serves, built once per deploy: `tools/list` returns a prebuilt result and
 * `tools/call` is one Map lookup, so neither costs more with 500 tools than with one.
 */
export class ToolCatalog {
  readonly listResult: ListToolsResult;
  private readonly byName: ReadonlyMap<string, ToolDefinition>;

  /** `securitySchemes` (the endpoint's access mode) join every tool's listing here, once per deploy. */
  constructor(definitions: readonly ToolDefinition[], securitySchemes?: readonly SecurityScheme[]) {
    const sorted = [...definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.byName = new Map(sorted.map((definition) => [definition.name, definition]));
    const listing = securitySchemes ? (tool: Tool) => withSecuritySchemes(tool, securitySchemes) : (tool: Tool) => tool;
    this.listResult = Object.freeze({ tools: sorted.map((definition) => listing(definition.listing)) });
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
