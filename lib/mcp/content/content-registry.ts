import { McpPaletteError } from '../../core/errors.js';
import { describeBinding } from '../tool-registry.js';
import type { ToolBinding } from '../tool-definition.js';
import { ContentCatalog } from './content-catalog.js';
import type { PromptDefinition } from './prompt-definition.js';
import type { ResourceDefinition } from './resource-definition.js';

/**
 * Every declared resource and prompt in this Node-RED process, keyed by the node that declared it,
 * bound to endpoint paths like tools. Endpoints read their catalog from here when flows start.
 */
export class ContentRegistry {
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly prompts = new Map<string, PromptDefinition>();

  /** Refuses a URI (or template) already served on an endpoint this one would also reach. */
  registerResource(ownerId: string, definition: ResourceDefinition): void {
    for (const [otherId, other] of this.resources) {
      if (otherId === ownerId || other.uri !== definition.uri || !overlap(other.binding, definition.binding)) continue;
      throw new McpPaletteError('duplicate_resource', `resource ${definition.uri} is already declared`, {
        uri: definition.uri,
        binding: describeBinding(definition.binding),
        other: otherId,
      });
    }
    this.resources.set(ownerId, definition);
  }

  registerPrompt(ownerId: string, definition: PromptDefinition): void {
    for (const [otherId, other] of this.prompts) {
      if (otherId === ownerId || other.name !== definition.name || !overlap(other.binding, definition.binding)) continue;
      throw new McpPaletteError('duplicate_prompt', `prompt ${definition.name} is already declared`, {
        prompt: definition.name,
        binding: describeBinding(definition.binding),
        other: otherId,
      });
    }
    this.prompts.set(ownerId, definition);
  }

  unregister(ownerId: string): void {
    this.resources.delete(ownerId);
    this.prompts.delete(ownerId);
  }

  catalogFor(path: string): ContentCatalog {
    const serves = (binding: ToolBinding) => binding.shared || binding.path === path;
    const resources = [...this.resources.values()].filter((resource) => serves(resource.binding));
    const prompts = [...this.prompts.values()].filter((prompt) => serves(prompt.binding));
    return resources.length === 0 && prompts.length === 0 ? ContentCatalog.empty : new ContentCatalog(resources, prompts);
  }
}

/** Process-wide, like the tool registry. */
export const contentRegistry = new ContentRegistry();

function overlap(a: ToolBinding, b: ToolBinding): boolean {
  return a.shared || b.shared || a.path === b.path;
}
