import type { AuthConfiguration } from '../auth/auth-configuration.js';
import type { FlowServerSettings } from '../config/flow-server-config.js';
import { itemAccess, type ItemAccess } from '../access/item-access.js';
import { McpPaletteError } from '../core/errors.js';
import type { ContentCatalog } from './content/content-catalog.js';
import type { ToolCatalog } from './tool-catalog.js';

/** What a deploy's access fields are checked on: its tools, and its resources and prompts when it has any. */
interface DeployedItems {
  readonly tools: ToolCatalog;
  readonly content: ContentCatalog | undefined;
}

/**
 * Refuses a deploy whose per-item access the endpoint cannot keep, before it serves anything: the
 * endpoint does not start, and its status names the item. Local endpoints know nobody's groups and
 * issue no scopes, so an item limited by either would be served to no one or to everyone, and
 * either is a surprise. On OAuth endpoints, a required scope must be one the sign-in can issue, or
 * the item could never be used.
 */
export function refuseUnkeptAccess(settings: FlowServerSettings, auth: Pick<AuthConfiguration, 'scopes' | 'scopeGrants'> | undefined, items: DeployedItems): void {
  if (settings.access === 'local') {
    const site = settings.edges.siteGroups.keys().next().value;
    const grouped = site !== undefined ? `edge site ${site}` : first(items, (item) => item.allowedGroups !== undefined);
    if (grouped !== undefined) {
      throw new McpPaletteError('item_groups_need_oauth', `${grouped} has allowed groups, which need OAuth sign-in: Local access knows no groups`, { item: grouped });
    }
    const scoped = first(items, (item) => item.requiredScopes !== undefined);
    if (scoped !== undefined) {
      throw new McpPaletteError('item_scopes_need_oauth', `${scoped} has required scopes, which need OAuth sign-in: Local access issues no scopes`, { item: scoped });
    }
    return;
  }
  if (auth === undefined) return;
  const issued = (scope: string) => auth.scopes.includes(scope) || auth.scopeGrants.has(scope);
  for (const item of named(items)) {
    const scope = item.requiredScopes?.find((required) => !issued(required));
    if (scope !== undefined) {
      throw new McpPaletteError('unknown_required_scope', `${item.label} requires the scope ${scope}, which this endpoint's sign-in does not issue`, { item: item.label, scope });
    }
  }
}

interface NamedItem extends ItemAccess {
  readonly label: string;
}

function first(items: DeployedItems, test: (item: NamedItem) => boolean): string | undefined {
  for (const item of named(items)) if (test(item)) return item.label;
  return undefined;
}

/** Every tool, resource and prompt of the deploy, named as a status line names it. */
function* named({ tools, content }: DeployedItems): Generator<NamedItem> {
  for (const listing of tools.listings) {
    const tool = tools.find(listing.name);
    if (tool) yield { label: `tool ${tool.name}`, ...itemAccess(tool) };
  }
  if (!content) return;
  const { resources, prompts } = content.items;
  for (const resource of resources) yield { label: `resource ${resource.uri}`, ...itemAccess(resource) };
  for (const prompt of prompts) yield { label: `prompt ${prompt.name}`, ...itemAccess(prompt) };
}
