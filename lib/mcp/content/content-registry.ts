import { McpPaletteError } from '../../core/errors.js';
import { describeBinding, type OwnedDeclarations } from '../tool-registry.js';
import type { ToolBinding } from '../tool-definition.js';
import { ContentCatalog } from './content-catalog.js';
import type { PromptDefinition } from './prompt-definition.js';
import type { ResourceDefinition } from './resource-definition.js';

/**
 * Every declared resource and prompt in this Node-RED process, keyed by the node that declared it,
 * bound to endpoint paths like tools. Endpoints read their catalog from here when flows start.
 */
export class ContentRegistry {
  private readonly resourcesByOwner = new Map<string, ResourceDefinition>();
  private readonly promptsByOwner = new Map<string, PromptDefinition>();

  /** The resources alone, registered and withdrawn the way the tool registry does it for tools. */
  readonly resources: OwnedDeclarations<ResourceDefinition> = {
    register: (ownerId, definition) => this.registerResource(ownerId, definition),
    unregister: (ownerId) => this.unregister(ownerId),
  };

  /** The prompts alone, likewise. */
  readonly prompts: OwnedDeclarations<PromptDefinition> = {
    register: (ownerId, definition) => this.registerPrompt(ownerId, definition),
    unregister: (ownerId) => this.unregister(ownerId),
  };

  /** Refuses a URI (or template) already served on an endpoint this one would also reach. */
  registerResource(ownerId: string, definition: ResourceDefinition): void {
    const { uri } = definition;
    declareOnce(this.resourcesByOwner, ownerId, definition, (other) => other.uri === uri, (other) =>
      new McpPaletteError('duplicate_resource', `resource ${uri} is already declared`, { uri, binding: describeBinding(definition.binding), other }));
  }

  /** Refuses a prompt name already served on an endpoint this one would also reach. */
  registerPrompt(ownerId: string, definition: PromptDefinition): void {
    const { name: prompt } = definition;
    declareOnce(this.promptsByOwner, ownerId, definition, (other) => other.name === prompt, (other) =>
      new McpPaletteError('duplicate_prompt', `prompt ${prompt} is already declared`, { prompt, binding: describeBinding(definition.binding), other }));
  }

  unregister(ownerId: string): void {
    this.resourcesByOwner.delete(ownerId);
    this.promptsByOwner.delete(ownerId);
  }

  catalogFor(path: string): ContentCatalog {
    const serves = (binding: ToolBinding) => binding.shared || binding.path === path;
    const resources = [...this.resourcesByOwner.values()].filter((resource) => serves(resource.binding));
    const prompts = [...this.promptsByOwner.values()].filter((prompt) => serves(prompt.binding));
    return resources.length === 0 && prompts.length === 0 ? ContentCatalog.empty : new ContentCatalog(resources, prompts);
  }
}

/** Process-wide, like the tool registry. */
export const contentRegistry = new ContentRegistry();

/**
 * Records a node's declaration unless another node already declares the same item (same URI, same
 * prompt name) where one endpoint would serve both. The node's own earlier declaration (a redeploy)
 * is replaced, not a clash.
 */
function declareOnce<T extends { readonly binding: ToolBinding }>(
  declared: Map<string, T>,
  ownerId: string,
  definition: T,
  sameItem: (other: T) => boolean,
  refusal: (otherOwnerId: string) => Error,
): void {
  for (const [otherId, other] of declared) {
    if (otherId !== ownerId && sameItem(other) && overlap(other.binding, definition.binding)) throw refusal(otherId);
  }
  declared.set(ownerId, definition);
}

function overlap(a: ToolBinding, b: ToolBinding): boolean {
  return a.shared || b.shared || a.path === b.path;
}
