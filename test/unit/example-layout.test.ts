// The example flows (examples/, Import > Examples in the editor) are drawn as a Node-RED user draws a
// flow: every wire runs left to right, no two wires cross, no wire runs through a node, no two nodes
// overlap, and none lies off the canvas. An answer that goes back to the endpoint's input travels
// through a link, not a wire looping back across the canvas.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { boxesOverlap, drawnNodes, flowWires, nodeBox, nodeLabel, wiresCross, wireThroughBox } from '../support/flow-layout.js';
import { repoRoot, type FlowNode } from '../support/node-red-process.js';

const examples = readdirSync(join(repoRoot, 'examples')).filter((file) => file.endsWith('.json')).sort();

function tabsOf(flow: readonly FlowNode[]): Map<string, FlowNode[]> {
  const tabs = new Map<string, FlowNode[]>();
  for (const node of drawnNodes(flow)) tabs.set(String(node.z), [...(tabs.get(String(node.z)) ?? []), node]);
  return tabs;
}

describe('the example flows are laid out left to right', () => {
  it('there are examples to check', () => {
    assert.ok(examples.length >= 7, examples.join(', '));
  });

  for (const file of examples) {
    const flow = JSON.parse(readFileSync(join(repoRoot, 'examples', file), 'utf8')) as FlowNode[];
    const name = (id: string) => {
      const node = flow.find((n) => n.id === id)!;
      return `${node.type} "${nodeLabel(node)}"`;
    };

    describe(file, () => {
      for (const [tab, nodes] of tabsOf(flow)) {
        const wires = flowWires(nodes);

        it(`tab ${tab}: every wire goes left to right`, () => {
          const backwards = wires.filter((wire) => wire.x2 <= wire.x1).map((wire) => `${name(wire.from)} -> ${name(wire.to)}`);
          assert.deepEqual(backwards, []);
        });

        it(`tab ${tab}: no two wires cross`, () => {
          const crossing: string[] = [];
          wires.forEach((a, i) => wires.slice(i + 1).forEach((b) => {
            if (wiresCross(a, b)) crossing.push(`${name(a.from)} -> ${name(a.to)} crosses ${name(b.from)} -> ${name(b.to)}`);
          }));
          assert.deepEqual(crossing, []);
        });

        it(`tab ${tab}: every node is on the canvas, no wire runs through a node, and no two nodes overlap`, () => {
          const boxes = nodes.map(nodeBox);
          const problems = boxes.filter((box) => box.left < 0 || box.top < 0).map((box) => `${name(box.id)} is off the canvas`);
          boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
            if (boxesOverlap(a, b)) problems.push(`${name(a.id)} overlaps ${name(b.id)}`);
          }));
          for (const wire of wires) {
            for (const box of boxes) {
              if (box.id !== wire.from && box.id !== wire.to && wireThroughBox(wire, box)) problems.push(`${name(wire.from)} -> ${name(wire.to)} runs through ${name(box.id)}`);
            }
          }
          assert.deepEqual(problems, []);
        });
      }
    });
  }
});

describe('the layout check', () => {
  const node = (id: string, x: number, y: number, wires: string[][] = []): FlowNode => ({ id, type: 'function', z: 't', name: id, x, y, wires });

  it('sees a wire looping back, two wires crossing and two nodes on top of each other', () => {
    const back = flowWires([node('a', 400, 100, [['b']]), node('b', 100, 100)]);
    assert.ok(back[0]!.x2 <= back[0]!.x1);
    const crossed = flowWires([node('a', 100, 100, [['d']]), node('b', 100, 200, [['c']]), node('c', 400, 100), node('d', 400, 200)]);
    assert.equal(wiresCross(crossed[0]!, crossed[1]!), true);
    const parallel = flowWires([node('a', 100, 100, [['c']]), node('b', 100, 200, [['d']]), node('c', 400, 100), node('d', 400, 200)]);
    assert.equal(wiresCross(parallel[0]!, parallel[1]!), false);
    assert.equal(boxesOverlap(nodeBox(node('a', 100, 100)), nodeBox(node('b', 160, 110))), true);
    assert.equal(boxesOverlap(nodeBox(node('a', 100, 100)), nodeBox(node('b', 100, 140))), false);
    const through = flowWires([node('a', 100, 100, [['c']]), node('c', 700, 100)]);
    assert.equal(wireThroughBox(through[0]!, nodeBox(node('b', 400, 100))), true);
  });
});
