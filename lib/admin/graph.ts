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
  /**
   * False when something of the component may be missing: the wire budget ran out before all of
   * it was reached, or it is wired to nodes past the node cap (or could be: their wires were not all read).
   */
  readonly complete: boolean;
  /** Wires between the component and nodes left out past the node cap (those nodes are not in `ids`). */
  readonly omittedWires: number;
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
  /** Nodes (not groups) past the node cap, left out of the graph. */
  readonly omittedNodes: number;
  private readonly out = new Map<string, Edge[]>();
  private readonly in = new Map<string, Edge[]>();
  /** Nodes in the graph wired to or from left-out nodes, with how many such wires each has. */
  private readonly cut = new Map<string, number>();
  /** False when the left-out nodes' wires could not all be read, so any component may touch them. */
  private readonly boundaryKnown: boolean;
  /** False when the wire budget ran out while the graph's own wires were read. */
  private readonly wiresRead: boolean;
  private edges = 0;

  private constructor(entries: readonly FlowNode[], private readonly inspection: Inspection) {
    const taken = entries.slice(0, GET_FLOW_LIMITS.maxGraphNodes);
    const leftOut = entries.slice(GET_FLOW_LIMITS.maxGraphNodes).filter((entry) => entry.type !== 'group');
    inspection.scannedNodes += taken.length;
    for (const entry of taken) (entry.type === 'group' ? this.groups : this.nodes).set(entry.id, entry);
    this.omittedNodes = leftOut.length;
    const complete = taken.length === entries.length;
    if (!complete) inspection.truncated = true;
    const leftOutIds = new Set(leftOut.map((entry) => entry.id));
    this.wiresRead = this.addWires(leftOutIds);
    this.boundaryKnown = this.wiresRead && this.markWiresFromLeftOut(leftOut);
    this.complete = this.wiresRead && complete;
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
    return this.walk(start, seen).component;
  }

  /** Every wired component (two or more nodes), in the order their first node appears. */
  components(): { readonly components: readonly Component[]; readonly complete: boolean } {
    const seen = new Set<string>();
    const components: Component[] = [];
    for (const id of this.nodes.keys()) {
      // A node wired only to left-out nodes is a chain too: one whose other end was left out.
      if (seen.has(id) || !(this.isWired(id) || this.cut.has(id))) continue;
      const { component, walked } = this.walk(id, seen);
      components.push(component);
      if (!walked) return { components, complete: false };
    }
    return { components, complete: true };
  }

  /** Walks one component; `walked` is false when the wire budget ran out on the way. */
  private walk(start: string, seen: Set<string>): { component: Component; walked: boolean } {
    const ids = [start];
    seen.add(start);
    let omittedWires = 0;
    let walked = true;
    walking: for (let cursor = 0; cursor < ids.length; cursor += 1) {
      const id = ids[cursor]!;
      omittedWires += this.cut.get(id) ?? 0;
      for (const edge of [...this.outgoing(id), ...this.incoming(id)]) {
        if (!this.inspection.visitWire()) {
          walked = false;
          break walking;
        }
        const next = edge.source === id ? edge.target : edge.source;
        if (!seen.has(next)) {
          seen.add(next);
          ids.push(next);
        }
      }
    }
    const complete = walked && omittedWires === 0 && this.boundaryKnown && this.wiresRead;
    return { component: { ids, complete, omittedWires }, walked };
  }

  private addWires(leftOutIds: ReadonlySet<string>): boolean {
    for (const node of this.nodes.values()) {
      const wires = node.wires;
      if (!Array.isArray(wires)) continue;
      for (const [port, targets] of wires.entries()) {
        if (!Array.isArray(targets)) continue;
        for (const target of targets) {
          if (!this.inspection.visitWire()) return false;
          if (typeof target !== 'string') continue;
          // Wires to nodes beyond the node cap are not edges we can show both ends of; they are counted.
          if (!this.nodes.has(target)) {
            if (leftOutIds.has(target)) this.cut.set(node.id, (this.cut.get(node.id) ?? 0) + 1);
            continue;
          }
          const edge: Edge = { source: node.id, port, target };
          push(this.out, node.id, edge);
          push(this.in, target, edge);
          this.edges += 1;
        }
      }
    }
    return true;
  }

  /** Counts the wires from left-out nodes into the graph; false when the wire budget ran out first. */
  private markWiresFromLeftOut(leftOut: readonly FlowNode[]): boolean {
    for (const node of leftOut) {
      if (!Array.isArray(node.wires)) continue;
      for (const targets of node.wires) {
        if (!Array.isArray(targets)) continue;
        for (const target of targets) {
          if (!this.inspection.visitWire()) return false;
          if (typeof target === 'string' && this.nodes.has(target)) this.cut.set(target, (this.cut.get(target) ?? 0) + 1);
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
