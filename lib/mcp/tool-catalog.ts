import type { ListToolsResult } from '@modelcontextprotocol/server';
import type { ToolDefinition } from './tool-definition.js';

/**
 * The tools one endpoint serves, built once per deploy: `tools/list` returns a prebuilt result and
 * `tools/call` is one Map lookup, so neither costs more with 500 tools than with one.
 */
export class ToolCatalog {
  readonly listResult: ListToolsResult;
  private readonly byName: ReadonlyMap<string, ToolDefinition>;

  constructor(definitions: readonly ToolDefinition[]) {
    const sorted = [...definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.byName = new Map(sorted.map((definition) => [definition.name, definition]));
    this.listResult = Object.freeze({ tools: sorted.map((definition) => definition.listing) });
  }

  get size(): number {
    return this.byName.size;
  }

  find(name: string): ToolDefinition | undefined {
    return this.byName.get(name);
  }

  static readonly empty = new ToolCatalog([]);
}
