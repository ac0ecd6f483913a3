import { McpPaletteError } from '../core/errors.js';
import type { AdminClient } from './admin-client.js';
import { parseGlobalDocument, parseTabDocument, type GlobalDocument, type SubflowDefinition, type TabDocument } from './flow-shapes.js';
import type { Inspection } from './inspection.js';
import type { TabIndex, TabIndexSnapshot } from './tab-index.js';

/**
 * Where one request's data comes from: the cached in-memory tab index, `/flow/:id` and
 * `/flow/global`. Each document is read at most once per request, and every read is recorded
 * for `meta.reads`.
 */
export class FlowSources {
  private globalDocument: Promise<GlobalDocument> | undefined;

  constructor(
    private readonly admin: AdminClient,
    private readonly index: TabIndex,
    private readonly inspection: Inspection,
    private readonly signal: AbortSignal,
  ) {}

  tabIndex(): TabIndexSnapshot {
    const { snapshot, cached } = this.index.get();
    this.inspection.cached = cached;
    if (!cached) this.inspection.scannedNodes += snapshot.scanned;
    return snapshot;
  }

  async tab(id: string): Promise<TabDocument> {
    const index = this.tabIndex();
    // A complete index knows every deployed tab, so an unknown id costs no admin read.
    if (!index.truncated && !index.byId.has(id)) throw unknownTab(id);
    this.inspection.reads.push(`/flow/${id}`);
    const document = await this.admin.readTab(id, this.signal);
    if (document === undefined) throw unknownTab(id);
    return parseTabDocument(document);
  }

  global(): Promise<GlobalDocument> {
    if (!this.globalDocument) {
      this.inspection.reads.push('/flow/global');
      this.globalDocument = this.admin.readGlobal(this.signal).then((document) => {
        if (document === undefined) throw new McpPaletteError('get_flow_admin_failed', 'The Node-RED admin API has no /flow/global document.');
        return parseGlobalDocument(document);
      });
    }
    return this.globalDocument;
  }

  async subflow(subflowId: string): Promise<SubflowDefinition> {
    const global = await this.global();
    const found = global.subflows.find((subflow) => subflow.raw.id === subflowId);
    if (!found) {
      throw new McpPaletteError('get_flow_not_found', `No deployed subflow has the id "${subflowId}". Use mode "subflows" to list them.`);
    }
    return found;
  }
}

function unknownTab(id: string): McpPaletteError {
  return new McpPaletteError('get_flow_not_found', `No deployed tab has the id "${id}". Call get_flow without arguments to list the tabs.`);
}
