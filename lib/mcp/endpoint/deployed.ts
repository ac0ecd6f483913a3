import type { ServerCapabilities } from '@modelcontextprotocol/server';
import { ContentCatalog } from '../content/content-catalog.js';
import { capabilitiesFor } from '../server-capabilities.js';
import { ToolCatalog } from '../tool-catalog.js';

/**
 * What the last deploy gave one endpoint: its tools, its resources and prompts, and the capabilities
 * they make it declare in each era. Built at deploy, never per request; every part of the endpoint
 * reads the same one, so a deploy is seen by all of them at once.
 */
export class Deployed {
  tools: ToolCatalog = ToolCatalog.empty;
  private contentCatalog: ContentCatalog = ContentCatalog.empty;
  /** Declared per era: only 2026-07-28 has a stream to deliver change notifications on. */
  private modern: ServerCapabilities = capabilitiesFor(ContentCatalog.empty, true);
  private legacy: ServerCapabilities = capabilitiesFor(ContentCatalog.empty, false);

  get content(): ContentCatalog {
    return this.contentCatalog;
  }

  /** Takes a deploy's resources and prompts; true when the capabilities they declare changed with them. */
  setContent(content: ContentCatalog): boolean {
    const changed = content.capabilityKey !== this.contentCatalog.capabilityKey;
    this.contentCatalog = content;
    if (!changed) return false;
    this.modern = capabilitiesFor(content, true);
    this.legacy = capabilitiesFor(content, false);
    return true;
  }

  capabilities(modern: boolean): ServerCapabilities {
    return modern ? this.modern : this.legacy;
  }
}
