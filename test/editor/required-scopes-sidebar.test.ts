// The MCP sidebar says which items need a scope (real Node-RED editor, packed palette, headless
// Chromium, a serving OAuth endpoint whose mcp-auth issues plant.write by group). Try it names the
// chosen tool's Required scopes under who may call it, and Resources and prompts under each item's
// access line; an item without scopes shows no such line, as with a runtime older than the field.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { WAIT } from '../support/editor-page.js';
import { answer, oauthServer, oidcAuth, prompt, resource, router, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

declare const RED: any;

const skip = chromiumMissing();
const z = 'tab-scopes';
const SERVER = 'rs-team-server';
type Catalog = Record<string, any>;

function scopedFlow(port: number) {
  return [
    tab(z),
    runtimeWithBaseUrl('rs-runtime', port),
    storage('rs-storage', 'memory'),
    {
      ...oidcAuth('rs-auth', { storage: 'rs-storage', issuer: 'https://login.example.com/realms/staff', clientId: 'node-red', secretEnv: 'MCP_SCOPES_SECRET', clientHosts: 'claude.ai' }),
      scopeGroups: '# set-points and shift handover\nplant.write = maintenance\nplant.admin = admins',
    },
    oauthServer(SERVER, { runtime: 'rs-runtime', auth: 'rs-auth', path: '/team', groups: 'staff', serverName: 'team', z, wires: ['rs-route'] }),
    tool('rs-read', { name: 'read_level', endpoint: '/team', z }),
    { ...tool('rs-write', { name: 'set_point', endpoint: '/team', z }), requiredScopes: 'plant.write', allowedGroups: 'maintenance' },
    resource('rs-manual', { name: 'manual', uri: 'plant://manual', endpoint: '/team', source: 'static', text: 'Open valve 3 slowly.', z }),
    { ...prompt('rs-handover', { name: 'handover', endpoint: '/team', z }), requiredScopes: 'plant.write, plant.admin' },
    router('rs-route', { read_level: 'rs-answer', set_point: 'rs-answer' }, z),
    answer(
      'rs-answer',
      `msg.topic = 'mcp-tool-response';
       msg.payload = { executionId: msg.payload.executionId, result: 'done' };
       return msg;`,
      SERVER,
      z,
    ),
  ];
}

describe('MCP sidebar: Required scopes of tools, resources and prompts', () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;
  let text: Catalog = {};
  const page = () => session!.page;
  const card = () => page().locator(`.flowmcp-endpoint[data-endpoint-id="${SERVER}"]`);

  before(async () => {
    if (skip) return;
    nodeRed = await startNodeRed(scopedFlow(await freePort()), { env: { MCP_SCOPES_SECRET: 'unused' } });
    const catalogs = (await (await fetch(`${nodeRed.adminUrl}/nodes/messages?lng=en-US`)).json()) as Record<string, Catalog>;
    text = catalogs['@flowmcp/node-red-mcp/mcp-flow-server']!['mcp-flow-server'].sidebar;
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: SERVER, paletteType: 'mcp-flow-server' });
    await session.page.evaluate(() => RED.sidebar.show('flowmcp-sidebar'));
    await card().locator('.flowmcp-state[data-state="serving"]').waitFor({ state: 'visible', ...WAIT });
  });

  after(async () => {
    await session?.close();
    await nodeRed?.stop();
  });

  it('Try it names the scopes the chosen tool needs, and nothing for a tool that needs none', { skip }, async () => {
    const team = card();
    await team.locator('.flowmcp-try summary').click(WAIT);
    const select = team.locator('.flowmcp-try-tool');
    await select.waitFor({ state: 'visible', ...WAIT });
    const scopes = team.locator('.flowmcp-try-scopes');

    await select.selectOption('set_point');
    assert.equal((await team.locator('.flowmcp-try-access').innerText()).trim(), text.try.allowedGroups.replace('__groups__', 'maintenance'));
    assert.equal((await scopes.innerText()).trim(), text.try.requiredScopes.replace('__scopes__', 'plant.write'));

    await select.selectOption('read_level');
    assert.equal((await team.locator('.flowmcp-try-access').innerText()).trim(), text.try.everyone);
    assert.equal(await scopes.isVisible(), false);
  });

  it('Resources and prompts names the scopes of each item that needs any', { skip }, async () => {
    const section = card().locator('.flowmcp-content');
    await section.locator('summary').click(WAIT);
    await section.locator('.flowmcp-content-item').first().waitFor({ state: 'visible', ...WAIT });
    const rows = await section.locator('.flowmcp-content-item').evaluateAll((items) =>
      items.map((item) => ['name', 'access', 'scopes'].map((part) => item.querySelector(`.flowmcp-content-${part}`)?.textContent ?? null)),
    );
    // The runtime keeps an item's scopes in a stable order (sorted), whatever order they were typed in.
    assert.deepEqual(rows, [
      ['manual', text.content.everyone, null],
      ['handover', text.content.everyone, text.content.requiredScopes.replace('__scopes__', 'plant.admin, plant.write')],
    ]);
  });
});
