// Upgrade-safe dialogs: a flow saved by an older version of the palette has none of the fields added
// since. Opened in today's editor, every dialog shows each such field's default (not a blank select,
// an empty box or an unticked box that the runtime would read otherwise), Cancel leaves the node as
// it was, and Done saves the defaults. The
// old flow is the every-dialog workspace with every field its node can do without taken out; which
// fields those are comes from each node type's own `defaults` (test/support/node-definitions.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { cancelOpenDialogs, openDialogOf, WAIT } from '../support/editor-page.js';
import { DIALOGS, everyDialogFlow, FLOW_SERVER } from '../support/editor-dialogs.js';
import { defaultedFields, nodeDefinition } from '../support/node-definitions.js';
import { startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

declare const RED: any;
declare const $: any;

const skip = chromiumMissing();

// The runtime keeps the port the test gave it, so the old flow does not listen on the default 1881.
const KEPT = new Set(['mcp-runtime.port']);

/** The flow as an older palette saved it: each node without the fields its type added later. */
function oldFlow(port: number): { flow: FlowNode[]; removed: Map<string, Record<string, unknown>> } {
  const removed = new Map<string, Record<string, unknown>>();
  const flow = everyDialogFlow(port).map((node) => {
    if (!node.type.startsWith('mcp-')) return node;
    const old: FlowNode = { ...node };
    const fields: Record<string, unknown> = {};
    for (const [field, value] of defaultedFields(nodeDefinition(node.type), node)) {
      if (KEPT.has(`${node.type}.${field}`)) continue;
      delete old[field];
      fields[field] = value;
    }
    removed.set(node.id, fields);
    return old;
  });
  return { flow, removed };
}

describe('dialogs of a flow saved before its fields existed', () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;
  let removed = new Map<string, Record<string, unknown>>();

  before(async () => {
    if (skip) return;
    const old = oldFlow(await freePort());
    removed = old.removed;
    nodeRed = await startNodeRed(old.flow, { env: { MCP_EDITOR_TEST_SECRET: 'unused' } });
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: FLOW_SERVER, paletteType: 'mcp-flow-server' });
  });

  after(async () => {
    await session?.close();
    await nodeRed?.stop();
  });

  it('the old flow lacks fields of every node type', { skip }, () => {
    for (const dialog of DIALOGS) {
      assert.ok(Object.keys(removed.get(dialog.id) ?? {}).length > 0, `${dialog.type} has fields the old flow lacks`);
    }
  });

  for (const dialog of DIALOGS) {
    it(`${dialog.type}: every field the node was saved without shows its default, and Done saves it`, { skip }, async () => {
      const p = session!.page;
      const fields = removed.get(dialog.id)!;
      const saved = await p.evaluate(({ id, fields }) => RED.nodes.node(id) && Object.keys(fields).filter((f) => RED.nodes.node(id)[f] !== undefined), { id: dialog.id, fields });
      assert.deepEqual(saved, [], `${dialog.type}: the editor loaded the old node without the fields`);

      const open = () => openDialogOf(p, dialog);

      // Opening and cancelling leaves the node as it was saved.
      await open();
      await cancelOpenDialogs(p);
      await p.locator(dialog.field).waitFor({ state: 'detached', ...WAIT });
      const untouched = await p.evaluate(({ id, fields }) => {
        const node = RED.nodes.node(id);
        return { set: Object.keys(fields).filter((f) => node[f] !== undefined), dirty: Boolean(node.changed) };
      }, { id: dialog.id, fields });
      assert.deepEqual(untouched, { set: [], dirty: false }, `${dialog.type}: unchanged after Cancel`);

      await open();

      // What each field's input shows: a ticked box, the chosen option, the text.
      const shown = await p.evaluate(({ prefix, fields }) => {
        const wrong: string[] = [];
        for (const [field, value] of Object.entries(fields)) {
          const input = $(`#${prefix}-${field}`);
          if (input.length === 0 || typeof value === 'object') continue;
          const actual = input.attr('type') === 'checkbox' ? input.prop('checked') : input.val();
          const expected = input.attr('type') === 'checkbox' ? value : String(value);
          if (actual !== expected) wrong.push(`${field} shows ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`);
        }
        return wrong;
      }, { prefix: dialog.config ? 'node-config-input' : 'node-input', fields });
      assert.deepEqual(shown, [], `${dialog.type}: fields not showing their default`);

      await p.locator(dialog.config ? '#node-config-dialog-ok' : '#node-dialog-ok').click(WAIT);
      await p.locator(dialog.field).waitFor({ state: 'detached', ...WAIT });
      const after = await p.evaluate(({ id, fields }) => {
        const node = RED.nodes.node(id);
        // Node-RED saves what a text box holds as text: "1000" for a default of 1000, as for any number typed.
        const same = (a: unknown, b: unknown) => (typeof b === 'object' ? JSON.stringify(a) === JSON.stringify(b) : typeof b === 'number' ? String(a) === String(b) : a === b);
        return Object.keys(fields).filter((f) => !same(node[f], fields[f])).map((f) => `${f}: ${JSON.stringify(node[f])}`);
      }, { id: dialog.id, fields });
      assert.deepEqual(after, [], `${dialog.type}: saved by Done with a value other than the default`);
      await cancelOpenDialogs(p);
    });
  }
});
