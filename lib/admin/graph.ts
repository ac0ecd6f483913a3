import type { FlowNode } from './flow-shapes.js';
import type { Inspection } from './inspection.js';
import { GET_FLOW_LIMITS } from './limits.js';

/** One direct wire: output `port` of `source` to the input of `target`. */
export interface Edge {
  readonly source: string;
  readonly port: number;
  readonly target: string;
}

export interface Component {
  readonly ids: readonly string[];
  /** False when the wire budget ran out before the whole component was reached. */
  readonly complete: boolean;
}

/**
 * The direct wires of one tab or subflow. Only `wires` are edges: link nodes name their targets
 * in `links`, which the graph leaves alone, so a chain never leaves its tab. Building and
 * walking both spend the request's wire budget, and at most 20 000 entries are taken in.
 */
export class FlowGraph {
  /** Wireable nodes by id, in the order the admin API listed them. */
  readonly nodes = new Map<string, FlowNode>();
  readonly groups = new Map<string, FlowNode>();
  /** Whether every entry and wire made it in. */
  readonly complete: boolean;
  private readonly out = new Map<string, Edge[]>();
  private readonly in = new Map<string, Edge[]>();
  private edges = 0;

  private constructor(entries: readonly FlowNode[], private readonly inspection: Inspection) {
    const taken = entries.slice(0, GET_FLOW_LIMITS.maxGraphNodes);
    inspection.scannedNodes += taken.length;
    for (const entry of taken) (entry.type === 'group' ? this.groups : this.nodes).set(entry.id, entry);
    let complete = taken.length === entries.length;
    if (!complete) inspection.truncated = true;
    complete = this.addWires() && complete;
    this.complete = complete;
  }

  static build(entries: readonly FlowNode[], inspection: Inspection): FlowGraph {
    return new FlowGraph(entries, inspection);
  }

  get edgeCount(): number {
    return this.edges;
  }

  outgoing(id: string): readonly Edge[] {
    return this.out.get(id) ?? [];
  }

  incoming(id: string): readonly Edge[] {
    return this.in.get(id) ?? [];
  }

  isWired(id: string): boolean {
    return this.out.has(id) || this.in.has(id);
  }

  /** The nodes reachable from `start` over wires in either direction, `start` first. */
  component(start: string, seen: Set<string> = new Set()): Component {
    const ids = [start];
    seen.add(start);
    for (let cursor = 0; cursor < ids.length; cursor += 1) {
      const id = ids[cursor]!;
      for (const edge of [...this.outgoing(id), ...this.incoming(id)]) {
        if (!this.inspection.visitWire()) return { ids, complete: false };
        const next = edge.source === id ? edge.target : edge.source;
        if (!seen.has(next)) {
          seen.add(next);
          ids.push(next);
        }
      }
    }
    return { ids, complete: true };
  }

  /** Every wired component (two or more nodes), in the order their first node appears. */
  components(): { readonly components: readonly Component[]; readonly complete: boolean } {
    const seen = new Set<string>();
    const components: Component[] = [];
    for (const id of this.nodes.keys()) {
      if (seen.has(id) || !this.isWired(id)) continue;
      const component = this.component(id, seen);
      components.push(component);
      if (!component.complete) return { components, complete: false };
    }
    return { components, complete: true };
  }

  private addWires(): boolean {
    for (const node of this.nodes.values()) {
      const wires = node.wires;
      if (!Array.isArray(wires)) continue;
      for (const [port, targets] of wires.entries()) {
        if (!Array.isArray(targets)) continue;
        for (const target of targets) {
          if (!this.inspection.visitWire()) return false;
          // Wires to nodes outside the graph (beyond the node cap) are not edges we can show both ends of.
          if (typeof target !== 'string' || !this.nodes.has(target)) continue;
          const edge: Edge = { source: node.id, port, target };
          push(this.out, node.id, edge);
          push(this.in, target, edge);
          this.edges += 1;
        }
      }
    }
    return true;
  }
}

function push(map: Map<string, Edge[]>, key: string, edge: Edge): void {
  const list = map.get(key);
  if (list) list.push(edge);
  else map.set(key, [edge]);
}
