import type { ContentCatalog } from '../mcp/content/content-catalog.js';

/** One resource, resource template or prompt as the sidebar lists it: what it is, and who may use it. */
export interface ContentAccessItem {
  readonly kind: 'resource' | 'template' | 'prompt';
  /** The resource's or template's name, or the prompt's. */
  readonly name: string;
  /** The URI, or the URI template (absent for a prompt). */
  readonly uri?: string;
  /** Its *Allowed groups*; absent when every caller the endpoint lets in may use it. */
  readonly allowedGroups?: readonly string[];
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
      ...(resource.allowedGroups ? { allowedGroups: resource.allowedGroups } : {}),
    })),
    ...prompts.map((prompt) => ({ kind: 'prompt' as const, name: prompt.name, ...(prompt.allowedGroups ? { allowedGroups: prompt.allowedGroups } : {}) })),
  ];
}
