import type { ContentCatalog } from './content/content-catalog.js';
import type { ToolCatalog } from './tool-catalog.js';

/**
 * What one caller may see and use of a deploy: its tools, resources and prompts. An item the view
 * leaves out is answered exactly as one nobody serves (same code, same message), so its name leaks
 * nothing; only telemetry and the audit log hear that it was withheld.
 */
export interface CatalogView {
  readonly tools: ToolCatalog;
  readonly content: ContentCatalog;
}
