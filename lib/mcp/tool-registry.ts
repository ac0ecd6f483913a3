import { McpPaletteError } from '../core/errors.js';
import { ToolCatalog } from './tool-catalog.js';
import type { SecurityScheme } from './security-schemes.js';
import type { ToolBinding, ToolDefinition } from './tool-definition.js';

interface Registration {
  readonly ownerId: string;
  readonly definition: ToolDefinition;
}

/** Definitions kept by the id of the node that declared them; what a declaration node (tool, resource, prompt) registers into. */
export interface OwnedDeclarations<Definition> {
  /** Throws McpPaletteError when another node already declares the same item on an endpoint this one reaches. */
  register(ownerId: string, definition: Definition): void;
  unregister(ownerId: string): void;
}

/**
 * Every declared tool in this Node-RED process, keyed by the node that declared it. Tools bind to
 * an endpoint *path* (or to all endpoints), never to a node id, so a binding survives copy, import
 * and replacing the endpoint node. Endpoints read their catalog from here when flows start.
 */
export class ToolRegistry implements OwnedDeclarations<ToolDefinition> {
  private readonly registrations = new Map<string, Registration>();

  /** Refuses a tool whose name is already served on an endpoint this one would also reach. */
  register(ownerId: string, definition: ToolDefinition): void {
    for (const other of this.registrations.values()) {
      if (other.ownerId === ownerId || other.definition.name !== definition.name) continue;
      if (!bindingsOverlap(other.definition.binding, definition.binding)) continue;
      throw new McpPaletteError('duplicate_tool', `tool ${definition.name} is already declared`, {
        tool: definition.name,
        binding: describeBinding(definition.binding),
        other: other.ownerId,
      });
    }
    this.registrations.set(ownerId, { ownerId, definition });
  }

  unregister(ownerId: string): void {
    this.registrations.delete(ownerId);
  }

  /**
   * `builtIn` tools (get_flow) join the catalog; a declared tool with the same name gives way.
   * `lowerPrecedence` tools (a hub's edge tools) join last: one whose name is taken is left out and
   * handed to `onRefused` as `taken`; a name two of them claim is served by neither (`claimed_twice`),
   * never by whichever comes first.
   */
  catalogFor(
    path: string,
    builtIn: readonly ToolDefinition[] = [],
    securitySchemes?: readonly SecurityScheme[],
    lowerPrecedence: readonly ToolDefinition[] = [],
    onRefused?: (tool: ToolDefinition, reason: 'taken' | 'claimed_twice') => void,
  ): ToolCatalog {
    const taken = new Set(builtIn.map((tool) => tool.name));
    const tools: ToolDefinition[] = [...builtIn];
    for (const { definition } of this.registrations.values()) {
      if (taken.has(definition.name) || !(definition.binding.shared || definition.binding.path === path)) continue;
      tools.push(definition);
      taken.add(definition.name);
    }
    const claims = new Map<string, number>();
    for (const tool of lowerPrecedence) claims.set(tool.name, (claims.get(tool.name) ?? 0) + 1);
    for (const tool of lowerPrecedence) {
      if (taken.has(tool.name)) onRefused?.(tool, 'taken');
      else if (claims.get(tool.name)! > 1) onRefused?.(tool, 'claimed_twice');
      else tools.push(tool);
    }
    return new ToolCatalog(tools, securitySchemes);
  }
}

/** Process-wide, like the listeners: every endpoint in this Node-RED sees the same declarations. */
export const toolRegistry = new ToolRegistry();

export function describeBinding(binding: ToolBinding): string {
  return binding.shared ? 'all endpoints' : binding.path;
}

function bindingsOverlap(a: ToolBinding, b: ToolBinding): boolean {
  return a.shared || b.shared || a.path === b.path;
}
