import { GET_FLOW_LIMITS } from './limits.js';

/** Property paths one answer redacted or left out, reported beside the data. */
export class Findings {
  readonly redacted: string[] = [];
  readonly omitted: string[] = [];
}

/**
 * The state of one get_flow request: its shared budgets (values walked, wire visits), what it
 * redacted or omitted, and the facts `meta` reports. Budgets are per request, not per list, so
 * no combination of arguments multiplies the work.
 */
export class Inspection {
  /** For `redactedProperties` / `omittedProperties`. */
  readonly findings = new Findings();
  /** For `configRedactedProperties` / `configOmittedProperties` (node settings from `includeConfig`). */
  readonly configFindings = new Findings();
  readonly reads: string[] = [];
  truncated = false;
  scannedNodes = 0;
  returnedNodes = 0;
  cached: boolean | undefined;
  private visitedValues = 0;
  private wires = 0;

  /** Counts one walked value; false once the request's value budget is spent. */
  visitValue(): boolean {
    return this.spend('visitedValues', GET_FLOW_LIMITS.maxVisitedValues);
  }

  get valuesExhausted(): boolean {
    return this.visitedValues >= GET_FLOW_LIMITS.maxVisitedValues;
  }

  /** Counts one wire visit; false once the request's wire budget is spent. */
  visitWire(): boolean {
    return this.spend('wires', GET_FLOW_LIMITS.maxWireVisits);
  }

  get wireVisits(): number {
    return this.wires;
  }

  /** Spends one unit of a budget; a spent budget truncates the answer. */
  private spend(budget: 'visitedValues' | 'wires', limit: number): boolean {
    if (this[budget] >= limit) {
      this.truncated = true;
      return false;
    }
    this[budget] += 1;
    return true;
  }
}
