import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { AccessViews } from '../../access/access-views.js';
import type { CatalogView } from '../catalog-view.js';
import { ContentCatalog } from '../content/content-catalog.js';
import { capabilitiesFor } from '../server-capabilities.js';
import { ToolCatalog } from '../tool-catalog.js';

/**
 * What the last deploy gave one endpoint: its tools, its resources and prompts, and the capabilities
 * they make it declare in each era. Built at deploy, never per request; every part of the endpoint
 * reads the same one, so a deploy is seen by all of them at once. Items with *Allowed groups* are
 * seen only by their members: each caller is served from its view (`viewFor`), one per distinct
 * answer to the deploy's restrictions, built on first use and kept until the next deploy.
 */
export class Deployed {
  private toolCatalog: ToolCatalog = ToolCatalog.empty;
  private contentCatalog: ContentCatalog = ContentCatalog.empty;
  private views = Deployed.viewsOf(ToolCatalog.empty, ContentCatalog.empty);
  /** Declared per era: only 2026-07-28 has a stream to deliver change notifications on. */
  private modern: ServerCapabilities = capabilitiesFor(ContentCatalog.empty, true);
  private legacy: ServerCapabilities = capabilitiesFor(ContentCatalog.empty, false);

  /** Every tool of the deploy (the editor's sidebar, edge announcements, status counts). */
  get tools(): ToolCatalog {
    return this.toolCatalog;
  }

  set tools(catalog: ToolCatalog) {
    this.toolCatalog = catalog;
    this.views = Deployed.viewsOf(catalog, this.contentCatalog);
  }

  /** Whether some item of this deploy has *Required scopes* (else no request is checked for them). */
  get scoped(): boolean {
    return this.toolCatalog.scoped || this.contentCatalog.scoped;
  }

  /** Every resource and prompt of the deploy. */
  get content(): ContentCatalog {
    return this.contentCatalog;
  }

  /** Takes a deploy's resources and prompts; true when the capabilities they declare changed with them. */
  setContent(content: ContentCatalog): boolean {
    const changed = content.capabilityKey !== this.contentCatalog.capabilityKey;
    this.contentCatalog = content;
    this.views = Deployed.viewsOf(this.toolCatalog, content);
    if (!changed) return false;
    this.modern = capabilitiesFor(content, true);
    this.legacy = capabilitiesFor(content, false);
    return true;
  }

  /** What `caller` may see and use: the whole deploy unless some item is restricted to groups. */
  viewFor(caller: CallerIdentity): CatalogView {
    return this.views.viewFor(caller);
  }

  /** Whether some item of this deploy is restricted to groups. */
  get restricted(): boolean {
    return this.views.restricted;
  }

  capabilities(modern: boolean): ServerCapabilities {
    return modern ? this.modern : this.legacy;
  }

  private static viewsOf(tools: ToolCatalog, content: ContentCatalog): AccessViews<CatalogView> {
    return new AccessViews<CatalogView>([...tools.restrictions, ...content.restrictions], Object.freeze({ tools, content }), (admits) =>
      Object.freeze({ tools: tools.restrictedTo(admits), content: content.restrictedTo(admits) }),
    );
  }
}
