import type { ContentCatalog } from '../mcp/content/content-catalog.js';
import type { ToolDefinition } from '../mcp/tool-definition.js';
import { itemAccess } from '../access/item-access.js';

/** One resource, resource template or prompt as the sidebar lists it: what it is, and who may use it. */
export interface ContentAccessItem {
  readonly kind: 'resource' | 'template' | 'prompt';
  /** The resource's or template's name, or the prompt's. */
  readonly name: string;
  /** The URI, or the URI template (absent for a prompt). */
  readonly uri?: string;
  /** Its *Allowed groups*; absent when every caller the endpoint lets in may use it. */
  readonly allowedGroups?: readonly string[];
  /** Its *Required scopes*; absent when signing in is enough. */
  readonly requiredScopes?: readonly string[];
  /** On a hub: the edge site that serves it (absent for the endpoint's own items). */
  readonly site?: string;
}

/**
 * The sidebar's sheet of an endpoint's resources, templates and prompts with their access, in the
 * order a client lists them. Built from the deploy's catalog on request: only the editor asks.
 */
export function contentAccess(catalog: Pick<ContentCatalog, 'items'>): ContentAccessItem[] {
  const { resources, prompts } = catalog.items;
  return [
    ...resources.map((resource) => ({
      kind: resource.template ? ('template' as const) : ('resource' as const),
      name: resource.name,
      uri: resource.uri,
      ...itemAccess(resource),
      ...(resource.relay ? { site: resource.relay.site } : {}),
    })),
    ...prompts.map((prompt) => ({ kind: 'prompt' as const, name: prompt.name, ...itemAccess(prompt), ...(prompt.relay ? { site: prompt.relay.site } : {}) })),
  ];
}

/**
 * Which of the listed tools only some groups may use, and which need scopes, by tool name: what the
 * sidebar's Try it says of each tool, sent beside the listing rather than in it.
 */
export function toolAccess(listed: readonly { readonly name: string }[], toolNamed: (name: string) => Pick<ToolDefinition, 'allowedGroups' | 'requiredScopes'> | undefined) {
  const allowedGroups: Record<string, readonly string[]> = {};
  const requiredScopes: Record<string, readonly string[]> = {};
  for (const { name } of listed) {
    const tool = toolNamed(name);
    if (tool?.allowedGroups) allowedGroups[name] = tool.allowedGroups;
    if (tool?.requiredScopes) requiredScopes[name] = tool.requiredScopes;
  }
  return { allowedGroups, requiredScopes };
}
