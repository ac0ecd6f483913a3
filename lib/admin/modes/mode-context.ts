import type { GetFlowArguments } from '../arguments.js';
import type { CopyScope } from '../copy-value.js';
import type { FlowSources } from '../flow-sources.js';
import type { Inspection } from '../inspection.js';

export interface ModeContext {
  readonly args: GetFlowArguments;
  readonly inspection: Inspection;
  readonly sources: FlowSources;
  /** Copy rules for everything outside `includeConfig` settings. */
  readonly scope: CopyScope;
}

/** A mode's own fields; the tool adds `mode`, `meta` and the redaction lists around them. */
export interface ModeAnswer {
  readonly fields: Record<string, unknown>;
  /** Size of the paginated list, when the mode has exactly one. */
  readonly total?: number;
  readonly nextOffset?: number | undefined;
}

export type ModeHandler = (context: ModeContext) => Promise<ModeAnswer>;
