import { GET_FLOW_LIMITS } from './limits.js';

export interface TabEntry {
  readonly id: string;
  readonly label: string | undefined;
  readonly disabled: boolean;
  /** Flow nodes on the tab (groups and config nodes are counted apart). */
  readonly nodeCount: number;
  readonly groupCount: number;
  readonly configCount: number;
}

export interface TabIndexSnapshot {
  readonly tabs: readonly TabEntry[];
  readonly byId: ReadonlyMap<string, TabEntry>;
  /** Configuration entries walked to build it. */
  readonly scanned: number;
  /** True when the walk stopped at the entry limit, so later tabs may be missing. */
  readonly truncated: boolean;
}

export type EachNode = (visit: (config: Record<string, unknown>) => void) => void;

interface Tally {
  nodes: number;
  groups: number;
  configs: number;
}

const STOP = Symbol('stop');

/**
 * Compact tab metadata from the deployed configuration in memory, built once per deploy. Only
 * ids, labels, flags and counts are kept: the walk neither copies nor serializes any node.
 */
export class TabIndex {
  private snapshot: TabIndexSnapshot | undefined;
  private generation: number | undefined;

  constructor(
    private readonly eachNode: EachNode,
    private readonly deployGeneration: () => number,
    private readonly maxEntries: number = GET_FLOW_LIMITS.maxIndexedNodes,
  ) {}

  /** The current index, and whether it came from the cache. */
  get(): { readonly snapshot: TabIndexSnapshot; readonly cached: boolean } {
    const generation = this.deployGeneration();
    if (this.snapshot && this.generation === generation) return { snapshot: this.snapshot, cached: true };
    const snapshot = this.build();
    this.snapshot = snapshot;
    this.generation = generation;
    return { snapshot, cached: false };
  }

  private build(): TabIndexSnapshot {
    const tabs: { id: string; label: string | undefined; disabled: boolean }[] = [];
    const tallies = new Map<string, Tally>();
    let scanned = 0;
    let truncated = false;
    try {
      this.eachNode((config) => {
        if (scanned >= this.maxEntries) {
          truncated = true;
          // eachNode has no way to stop early; leaving its loop by throwing is the only exit.
          throw STOP;
        }
        scanned += 1;
        const { id, type, z } = config;
        if (typeof id !== 'string') return;
        if (type === 'tab') {
          tabs.push({ id, label: typeof config.label === 'string' ? config.label : undefined, disabled: config.disabled === true });
          return;
        }
        if (typeof z !== 'string' || z === '') return;
        let tally = tallies.get(z);
        if (!tally) {
          tally = { nodes: 0, groups: 0, configs: 0 };
          tallies.set(z, tally);
        }
        if (type === 'group') tally.groups += 1;
        // Node-RED tells flow nodes from config nodes the same way: flow nodes have a position.
        else if ('x' in config && 'y' in config) tally.nodes += 1;
        else tally.configs += 1;
      });
    } catch (error) {
      if (error !== STOP) throw error;
    }
    const entries = tabs.map((tab): TabEntry => {
      const tally = tallies.get(tab.id);
      return { ...tab, nodeCount: tally?.nodes ?? 0, groupCount: tally?.groups ?? 0, configCount: tally?.configs ?? 0 };
    });
    return Object.freeze({ tabs: entries, byId: new Map(entries.map((entry) => [entry.id, entry])), scanned, truncated });
  }
}
