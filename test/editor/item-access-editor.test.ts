// Allowed groups in the real Node-RED editor (packed palette, headless Chromium): a tool, resource or
// prompt saved before the field loads valid; the field refuses a group longer than the runtime takes,
// and groups on an item a Local endpoint would serve (its path, or Shared while any Local endpoint
// exists), with the catalog's words, as the runtime refuses such an endpoint at deploy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { catalogFile } from '../support/editor-dialogs.js';
import { cancelOpenDialogs } from '../support/editor-page.js';
import { flowServer, prompt, resource, runtime, tab, tool } from '../support/flows.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

declare const RED: any;

const skip = chromiumMissing();
const RUNTIME = 'ac0e000000000001';
const LOCAL = 'ac0e000000000002';
const SIGNED = 'ac0e000000000003';

describe('Node-RED editor: Allowed groups on tools, resources and prompts', () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;

  before(async () => {
    if (skip) return;
    const port = await freePort();
    const flow = [
      tab(),
      runtime(RUNTIME, port),
      flowServer(LOCAL, { runtime: RUNTIME, path: '/mcp' }),
      // Signed in (its mcp-auth is not set up here: the editor judges only the access mode).
      { ...flowServer(SIGNED, { runtime: RUNTIME, path: '/ops' }), access: 'oauth', groups: 'staff' },
      tool('ac0e000000000010', { name: 'old_tool', endpoint: '/ops' }),
      { ...tool('ac0e000000000011', { name: 'ops_tool', endpoint: '/ops' }), allowedGroups: 'maintenance, ops' },
      { ...tool('ac0e000000000012', { name: 'local_tool', endpoint: '/mcp' }), allowedGroups: 'maintenance' },
      { ...tool('ac0e000000000013', { name: 'shared_tool', endpoint: '*' }), allowedGroups: 'maintenance' },
      { ...tool('ac0e000000000014', { name: 'long_group', endpoint: '/ops' }), allowedGroups: 'x'.repeat(257) },
      { ...resource('ac0e000000000015', { uri: 'plant://secret', endpoint: '/ops', source: 'static', text: 'x' }), allowedGroups: 'maintenance' },
      { ...resource('ac0e000000000016', { uri: 'plant://local', endpoint: '/mcp', source: 'static', text: 'x' }), allowedGroups: 'maintenance' },
      { ...prompt('ac0e000000000017', { name: 'plan', endpoint: '/ops' }), allowedGroups: 'maintenance' },
      { ...prompt('ac0e000000000018', { name: 'local_plan', endpoint: '/mcp' }), allowedGroups: 'maintenance' },
    ];
    nodeRed = await startNodeRed(flow, {});
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: 'ac0e000000000010', paletteType: 'mcp-tool-registry' });
  });

  after(async () => {
    if (session) await cancelOpenDialogs(session.page);
    await session?.close();
    await nodeRed?.stop();
  });

  it('judges each item as the runtime would serve it, in the catalog’s words', { skip }, async () => {
    const verdicts = await session!.page.evaluate(() => {
      const out: Record<string, unknown> = {};
      RED.nodes.eachNode((node: any) => {
        if (!['mcp-tool-registry', 'mcp-resource', 'mcp-prompt'].includes(node.type)) return;
        const check = RED.nodes.getType(node.type).defaults.allowedGroups;
        out[node.toolName ?? node.uri ?? node.promptName] = { saved: node.allowedGroups ?? null, verdict: check.validate.call(node, node.allowedGroups, {}) };
      });
      return out;
    });
    const say = (type: string, key: string) => catalogFile('en-US', type).get(key)!;
    assert.deepEqual(verdicts, {
      old_tool: { saved: null, verdict: true },
      ops_tool: { saved: 'maintenance, ops', verdict: true },
      local_tool: { saved: 'maintenance', verdict: say('mcp-tool-registry', 'errors.allowedGroupsNeedOauth') },
      shared_tool: { saved: 'maintenance', verdict: say('mcp-tool-registry', 'errors.allowedGroupsNeedOauth') },
      long_group: { saved: 'x'.repeat(257), verdict: say('mcp-tool-registry', 'errors.invalidAllowedGroups') },
      'plant://secret': { saved: 'maintenance', verdict: true },
      'plant://local': { saved: 'maintenance', verdict: say('mcp-resource', 'errors.allowedGroupsNeedOauth') },
      plan: { saved: 'maintenance', verdict: true },
      local_plan: { saved: 'maintenance', verdict: say('mcp-prompt', 'errors.allowedGroupsNeedOauth') },
    });
  });
});
