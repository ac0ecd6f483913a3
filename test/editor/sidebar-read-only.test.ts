// Try it for a Node-RED user who may look but not change (adminAuth's `read` permission): Run is off
// from the start with the reason under it, instead of an enabled button that ends in a 403. A user
// with every permission, in the same Node-RED, gets an enabled Run and no such note.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { waitForEndpoint } from '../support/mcp-http.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { LOCAL_SERVER, sidebarFlow } from '../support/sidebar-flow.js';

declare const RED: any;

const WAIT = { timeout: 30_000 };
const skip = chromiumMissing();
/**
 * The palette's page errors (their stacks name its resources/@flowmcp/ files). Node-RED 5's own tip
 * rotation can throw once before openEditor turns the tips off; that one is Node-RED's, not ours.
 */
const paletteErrors = (errors: readonly string[]) => errors.filter((error) => /flowmcp|mcp-sidebar/.test(error));
const TOKENS = { write: 'ro-sidebar-write', read: 'ro-sidebar-flows-read', viewer: 'ro-sidebar-viewer' };

describe('MCP sidebar for a read-only editor user', () => {
  let nodeRed: NodeRedProcess | undefined;
  let readOnlyText = '';
  const sessions: EditorBrowser[] = [];

  before(async () => {
    if (skip) return;
    const port = await freePort();
    nodeRed = await startNodeRed(sidebarFlow(port), { env: { MCP_SIDEBAR_SECRET: 'unused' }, adminTokens: TOKENS });
    await waitForEndpoint(`http://127.0.0.1:${port}/mcp`);
    const catalogs = (await (
      await fetch(`${nodeRed.adminUrl}/nodes/messages?lng=en-US`, { headers: { authorization: `Bearer ${TOKENS.write}` } })
    ).json()) as Record<string, any>;
    readOnlyText = catalogs['@flowmcp/node-red-mcp/mcp-flow-server']['mcp-flow-server'].sidebar.try.readOnly;
  });

  after(async () => {
    for (const session of sessions) await session.close();
    await nodeRed?.stop();
  });

  /** The editor signed in with `token` (Node-RED keeps an access_token from the URL), Try it open. */
  async function tryItAs(token: string) {
    const session = await launchEditorBrowser();
    sessions.push(session);
    await session.page.goto(`${nodeRed!.adminUrl}/?access_token=${token}`, { waitUntil: 'domcontentloaded' });
    await session.page.waitForURL((url) => url.search === '', WAIT);
    await openEditor(session.page, nodeRed!.adminUrl, { nodeId: LOCAL_SERVER, paletteType: 'mcp-flow-server' });
    await session.page.evaluate(() => RED.sidebar.show('flowmcp-sidebar'));
    const card = session.page.locator(`.flowmcp-endpoint[data-endpoint-id="${LOCAL_SERVER}"]`);
    // The first list can take a while on a loaded machine; nothing here waits on a timer.
    await card.locator('.flowmcp-try > summary').click({ timeout: 90_000 });
    await card.locator('.flowmcp-try-run').waitFor({ state: 'visible', ...WAIT });
    return { session, card };
  }

  it('shows Run off with the reason, and sends nothing', { skip }, async () => {
    const { session, card } = await tryItAs(TOKENS.viewer);
    assert.equal(await card.locator('.flowmcp-try-run').isDisabled(), true);
    assert.equal((await card.locator('.flowmcp-try-read-only').innerText()).trim(), readOnlyText);
    await card.locator('.flowmcp-try-run').click({ force: true });
    assert.equal(await card.locator('.flowmcp-try-output').innerHTML(), '');
    assert.deepEqual(session.failedResponses, [], 'no 403 from a Try-it request');
    assert.deepEqual(paletteErrors(session.pageErrors), []);
  });

  it('gives a user with the write permission an enabled Run', { skip }, async () => {
    const { session, card } = await tryItAs(TOKENS.write);
    assert.equal(await card.locator('.flowmcp-try-run').isDisabled(), false);
    assert.equal(await card.locator('.flowmcp-try-read-only').count(), 0);
    await card.locator('.flowmcp-try-run').click(WAIT);
    await card.locator('.flowmcp-try-status').waitFor({ state: 'visible', ...WAIT });
    assert.deepEqual(paletteErrors(session.pageErrors), []);
  });
});
