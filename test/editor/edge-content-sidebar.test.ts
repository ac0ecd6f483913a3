// The MCP sidebar on a hub lists an edge site's resources and prompts under the hub's names and says
// which site serves each (real Node-RED editor, packed palette, headless Chromium). Hub and edge are
// two endpoints of one Node-RED on a memory storage, which relays within one process.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { WAIT } from '../support/editor-page.js';
import { flowServer, prompt, resource, runtime, storage, tab } from '../support/flows.js';
import { connect, withClient } from '../support/mcp-http.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

declare const RED: any;

const skip = chromiumMissing();
const z = 'tab-edge-content';
const HUB = 'ec-hub';
const EDGE = 'ec-edge';
type Catalog = Record<string, any>;

function flows(port: number) {
  return [
    tab(z),
    runtime('ec-runtime', port),
    storage('ec-storage', 'memory'),
    { ...flowServer(HUB, { runtime: 'ec-runtime', path: '/hub', z, wires: [] }), storage: 'ec-storage', hubSites: 'plant-a' },
    { ...flowServer(EDGE, { runtime: 'ec-runtime', path: '/edge', z, wires: [] }), storage: 'ec-storage', edgeSite: 'plant-a' },
    resource('ec-manual', { name: 'manual', uri: 'plant://manual', endpoint: '/edge', source: 'static', text: 'Open valve 3 slowly.', z }),
    prompt('ec-handover', { name: 'handover', endpoint: '/edge', z }),
  ];
}

/** Resolves once `check` says yes (asked every 100 ms); fails after 15 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail('the hub never listed the edge site\'s resources');
}

describe("MCP sidebar: an edge site's resources and prompts on its hub", () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;
  let text: Catalog = {};
  const card = (id: string) => session!.page.locator(`.flowmcp-endpoint[data-endpoint-id="${id}"]`);
  const rows = async (id: string) => {
    const section = card(id).locator('.flowmcp-content');
    await section.locator('summary').click(WAIT);
    await section.locator('.flowmcp-content-item').first().waitFor({ state: 'visible', ...WAIT });
    return section.locator('.flowmcp-content-item').evaluateAll((items) =>
      items.map((item) => ['name', 'uri', 'site'].map((part) => item.querySelector(`.flowmcp-content-${part}`)?.textContent ?? null)),
    );
  };

  before(async () => {
    if (skip) return;
    const port = await freePort();
    nodeRed = await startNodeRed(flows(port));
    // The edge announces within 2 s of starting: the hub lists its manual from then on.
    await until(async () => withClient(connect(`http://127.0.0.1:${port}/hub`, 'legacy'), async (client) => Boolean(client.getServerCapabilities()?.resources)));
    const catalogs = (await (await fetch(`${nodeRed.adminUrl}/nodes/messages?lng=en-US`)).json()) as Record<string, Catalog>;
    text = catalogs['@flowmcp/node-red-mcp/mcp-flow-server']!['mcp-flow-server'].sidebar;
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: HUB, paletteType: 'mcp-flow-server' });
    await session.page.evaluate(() => RED.sidebar.show('flowmcp-sidebar'));
    for (const id of [HUB, EDGE]) await card(id).locator('.flowmcp-state[data-state="serving"]').waitFor({ state: 'visible', ...WAIT });
  });

  after(async () => {
    await session?.close();
    await nodeRed?.stop();
  });

  it("names the site on the hub's edge items, and no site on the edge's own", { skip }, async () => {
    const site = text.content.fromSite.replace('__site__', 'plant-a');
    assert.deepEqual(await rows(HUB), [
      ['manual', 'edge://plant-a/plant://manual', site],
      ['plant-a.handover', null, site],
    ]);
    assert.deepEqual(await rows(EDGE), [
      ['manual', 'plant://manual', null],
      ['handover', null, null],
    ]);
  });
});
