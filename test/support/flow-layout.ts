// How a flow is drawn on Node-RED's canvas, approximately: each node's box from its label (Node-RED
// sizes a node to its label, at least 100 px wide and 30 px high, 15 px more per output past two),
// its ports, and its wires as straight lines from output port to input port. Enough to hold the
// shipped examples to the way a user lays a flow out: left to right, no crossing wires, no overlaps.
import type { FlowNode } from './node-red-process.js';

export interface Box {
  readonly id: string;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

export interface Wire {
  readonly from: string;
  readonly to: string;
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

// Generous for the editor's 14 px sans-serif, so a label never draws wider than counted here.
const PX_PER_CHARACTER = 8;
// The icon and the padding around the label.
const ICON_AND_PADDING = 50;
// Node-RED spaces output ports 13 px apart, centred on the node.
const PORT_SPACING = 13;
// Link nodes show no label unless asked to (`l: true`): a 30 px square.
const LABEL_HIDDEN_BY_DEFAULT = new Set(['link in', 'link out', 'link call']);
// Inject nodes draw their button left of the box, debug nodes theirs right of it.
const BUTTON = 25;
const BUTTON_LEFT = new Set(['inject']);
const BUTTON_RIGHT = new Set(['debug']);

/** The text Node-RED shows on `node`: its name, else what its type shows without one. */
export function nodeLabel(node: FlowNode): string {
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  const shown =
    text(node.name) ||
    text(node.toolName) ||
    text(node.resourceName) ||
    text(node.promptName) ||
    (node.type === 'mcp-flow-server' ? `${text(node.serverName)} ${text(node.path)}`.trim() : '') ||
    text(node.uri);
  return shown || node.type;
}

/** How wide Node-RED draws `node`'s body: from its label, or a square when the label is hidden. */
function bodyWidth(node: FlowNode): number {
  const labelHidden = LABEL_HIDDEN_BY_DEFAULT.has(node.type) ? node.l !== true : node.l === false;
  return labelHidden ? 30 : Math.max(100, 20 * Math.ceil((nodeLabel(node).length * PX_PER_CHARACTER + ICON_AND_PADDING) / 20));
}

/** Where `node` sits: its box, centred on its x and y like Node-RED's, with its button if it has one. */
export function nodeBox(node: FlowNode): Box {
  const x = Number(node.x);
  const y = Number(node.y);
  const outputs = Array.isArray(node.wires) ? node.wires.length : 0;
  const half = bodyWidth(node) / 2;
  const height = Math.max(30, outputs * 15);
  const left = x - half - (BUTTON_LEFT.has(node.type) ? BUTTON : 0);
  const right = x + half + (BUTTON_RIGHT.has(node.type) ? BUTTON : 0);
  return { id: node.id, left, right, top: y - height / 2, bottom: y + height / 2 };
}

/** The nodes of `flow` drawn on its canvas (tabs, config nodes and groups have no box of their own). */
export function drawnNodes(flow: readonly FlowNode[]): FlowNode[] {
  return flow.filter((node) => typeof node.x === 'number' && typeof node.y === 'number' && node.type !== 'group');
}

/** Every wire of `flow`, from its source's output port to its target's input port. */
export function flowWires(flow: readonly FlowNode[]): Wire[] {
  const byId = new Map(drawnNodes(flow).map((node) => [node.id, node]));
  const wires: Wire[] = [];
  for (const source of byId.values()) {
    const outputs = Array.isArray(source.wires) ? (source.wires as string[][]) : [];
    const outputPort = Number(source.x) + bodyWidth(source) / 2;
    outputs.forEach((targets, port) => {
      const y1 = Number(source.y) + (port - (outputs.length - 1) / 2) * PORT_SPACING;
      for (const id of targets) {
        const target = byId.get(id);
        if (!target) throw new Error(`${source.id} is wired to ${id}, which is not drawn in the flow`);
        wires.push({ from: source.id, to: id, x1: outputPort, y1, x2: Number(target.x) - bodyWidth(target) / 2, y2: Number(target.y) });
      }
    });
  }
  return wires;
}

/** Whether two wires cross (wires meeting at a port they share do not). */
export function wiresCross(a: Wire, b: Wire): boolean {
  if ((a.x1 === b.x1 && a.y1 === b.y1) || (a.x2 === b.x2 && a.y2 === b.y2)) return false;
  const side = (px: number, py: number, qx: number, qy: number, rx: number, ry: number) => Math.sign((qx - px) * (ry - py) - (qy - py) * (rx - px));
  return (
    side(a.x1, a.y1, a.x2, a.y2, b.x1, b.y1) * side(a.x1, a.y1, a.x2, a.y2, b.x2, b.y2) < 0 &&
    side(b.x1, b.y1, b.x2, b.y2, a.x1, a.y1) * side(b.x1, b.y1, b.x2, b.y2, a.x2, a.y2) < 0
  );
}

export function boxesOverlap(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/** Whether `wire` passes through `box` (sampled along its line: a wire is a few hundred pixels long). */
export function wireThroughBox(wire: Wire, box: Box): boolean {
  for (let step = 1; step < 100; step += 1) {
    const x = wire.x1 + ((wire.x2 - wire.x1) * step) / 100;
    const y = wire.y1 + ((wire.y2 - wire.y1) * step) / 100;
    if (x > box.left && x < box.right && y > box.top && y < box.bottom) return true;
  }
  return false;
}
