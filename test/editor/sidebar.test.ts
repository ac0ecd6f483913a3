// The MCP sidebar tab in the real Node-RED editor (packed palette, headless Chromium): it lists the
// endpoints of a running flow, its copy buttons copy the exact client commands, Try it runs tools
// through the real endpoint and flow (structured result, isError result, image, refused arguments),
// and recent calls appear, from the editor and from a real MCP client.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { tool } from '../support/flows.js';
import { connect, waitForEndpoint } from '../support/mcp-http.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { LOCAL_SERVER, SIDEBAR_TAB, TEAM_SERVER, sidebarFlow } from '../support/sidebar-flow.js';

declare const RED: any;

const WAIT = { timeout: 30_000 };
const skip = chromiumMissing();
type Catalog = Record<string, any>;

describe('MCP sidebar in the Node-RED editor', () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;
  let port = 0;
  let text: Catalog = {};
  const page = () => session!.page;
  const card = (id: string) => page().locator(`.flowmcp-endpoint[data-endpoint-id="${id}"]`);
  const base = () => `http://127.0.0.1:${port}`;

  before(async () => {
    if (skip) return;
    port = await freePort();
    nodeRed = await startNodeRed(sidebarFlow(port), { env: { MCP_SIDEBAR_SECRET: 'unused' } });
    await waitForEndpoint(`${base()}/mcp`);
    const catalogs = (await (await fetch(`${nodeRed.adminUrl}/nodes/messages?lng=en-US`)).json()) as Record<string, Catalog>;
    text = catalogs['@flowmcp/node-red-mcp/mcp-flow-server']!['mcp-flow-server'].sidebar;
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: LOCAL_SERVER, paletteType: 'mcp-flow-server' });
    // What RED.clipboard.copyText puts on the clipboard: the hidden field it selects before `copy`.
    await session.page.evaluate(() => {
      (window as any).copied = [];
      document.addEventListener('copy', () => (window as any).copied.push((document.activeElement as HTMLTextAreaElement).value));
    });
    await session.page.evaluate(() => RED.sidebar.show('flowmcp-sidebar'));
  });

  after(async () => {
    await session?.close();
    await nodeRed?.stop();
  });

  it('lists the endpoints of the running flow with URL, access, state and counts', { skip }, async () => {
    const local = card(LOCAL_SERVER);
    await local.locator('.flowmcp-state[data-state="serving"]').waitFor({ state: 'visible', ...WAIT });
    assert.equal((await local.locator('.flowmcp-endpoint-name').innerText()).trim(), 'plant tools');
    assert.equal((await local.locator('.flowmcp-url').innerText()).trim(), `${base()}/mcp`);
    assert.equal((await local.locator('.flowmcp-access').innerText()).trim(), text.access.local);
    assert.equal((await local.locator('.flowmcp-counts').innerText()).trim(), text.counts.tools_other.replace('__count__', '3'));
    const team = card(TEAM_SERVER);
    await team.locator('.flowmcp-state[data-state="serving"]').waitFor({ state: 'visible', ...WAIT });
    assert.equal((await team.locator('.flowmcp-access').innerText()).trim(), text.access.oauthGroups.replace('__slug__', 'team').replace('__groups__', 'staff'));
    assert.equal(
      (await team.locator('.flowmcp-counts').innerText()).trim(),
      [text.counts.tools_one.replace('__count__', '1'), text.counts.resources_other.replace('__count__', '2'), text.counts.prompts_one.replace('__count__', '1')].join(', '),
    );
    // Only an endpoint with resources or prompts has the section.
    assert.equal(await local.locator('.flowmcp-content').count(), 0);
    assert.equal((await team.locator('.flowmcp-note[data-note="codexCannotSignIn"]').innerText()).trim(), text.notes.codexCannotSignIn);
    // No catalog key shows as text anywhere in the tab.
    assert.doesNotMatch(await page().locator('.flowmcp-sidebar').innerText(), /mcp-flow-server\.sidebar\.|sidebar\.[a-z]+\.[a-z]/);
  });

  it('copies the exact commands for Claude Code, Codex, VS Code and Cursor', { skip }, async () => {
    const url = `${base()}/mcp`;
    const expected: Record<string, string> = {
      claude: `claude mcp add --transport http plant-tools ${url}`,
      codex: `codex mcp add plant-tools --url ${url}`,
      vscode: JSON.stringify({ servers: { 'plant-tools': { type: 'http', url } } }, null, 2),
      cursor: JSON.stringify({ mcpServers: { 'plant-tools': { url } } }, null, 2),
    };
    // The section is folded at first; each client's copy button works with its text folded too.
    await card(LOCAL_SERVER).locator('.flowmcp-connect-section > summary').click(WAIT);
    for (const [client, command] of Object.entries(expected)) {
      const row = card(LOCAL_SERVER).locator(`.flowmcp-command[data-client="${client}"]`);
      assert.equal(await row.locator('.flowmcp-command-text').textContent(), command, `${client}: shown`);
      await row.locator('.flowmcp-copy').click(WAIT);
      const copied = await page().evaluate(() => (window as any).copied.pop());
      assert.equal(copied, command, `${client}: copied`);
    }
  });

  it('Try it: runs a tool from the generated form and shows its structured result', { skip }, async () => {
    const local = card(LOCAL_SERVER);
    await local.locator('.flowmcp-try summary').click(WAIT);
    const select = local.locator('.flowmcp-try-tool');
    await select.waitFor({ state: 'visible', ...WAIT });
    await select.selectOption('echo');
    const form = local.locator('.flowmcp-try-form');
    await form.locator('[data-argument="text"] input').fill('ab');
    await form.locator('[data-argument="times"] input').fill('2');
    assert.equal((await form.locator('[data-argument="text"] .flowmcp-try-hint').innerText()).trim(), 'what to echo');
    await local.locator('.flowmcp-try-run').click(WAIT);
    const status = local.locator('.flowmcp-try-status');
    await status.waitFor({ state: 'visible', ...WAIT });
    assert.equal(await status.getAttribute('data-status'), 'success');
    assert.equal((await status.innerText()).trim(), text.status.success);
    assert.match(await local.locator('.flowmcp-try-duration').innerText(), /^\d+(\.\d+)? ms$/);
    const structured = JSON.parse(await local.locator('.flowmcp-try-structured pre').innerText());
    assert.equal(structured.echoed, 'abab');
    assert.deepEqual([structured.caller.client, structured.caller.editor], ['editor', { user: null }]);
    const shot = join(mkdtempSync(join(tmpdir(), 'nr-mcp-sidebar-shots-')), 'sidebar-try-it.png');
    await page().screenshot({ path: shot });
    console.log(`editor screenshot (MCP sidebar, Try it): ${shot}`);
  });

  it('Try it: shows an isError result, an image, and the arguments check of a refused call', { skip }, async () => {
    const local = card(LOCAL_SERVER);
    const status = local.locator('.flowmcp-try-status');
    await local.locator('.flowmcp-try-tool').selectOption('broken');
    await local.locator('.flowmcp-try-run').click(WAIT);
    await local.locator('.flowmcp-try-status[data-status="error"]').waitFor({ state: 'visible', ...WAIT });
    assert.equal((await status.innerText()).trim(), text.status.error);
    assert.match(await local.locator('.flowmcp-try-content.flowmcp-is-error .flowmcp-try-text').innerText(), /the pump is offline/);

    await local.locator('.flowmcp-try-tool').selectOption('pixel');
    await local.locator('.flowmcp-try-run').click(WAIT);
    await local.locator('img.flowmcp-try-image').waitFor({ state: 'visible', ...WAIT });
    assert.equal(await local.locator('img.flowmcp-try-image').evaluate((img: HTMLImageElement) => img.naturalWidth), 1);

    // The form sends what it holds; the endpoint's check names each refused argument.
    await local.locator('.flowmcp-try-tool').selectOption('echo');
    await local.locator('.flowmcp-try-form [data-argument="times"] input').fill('0');
    await local.locator('.flowmcp-try-run').click(WAIT);
    await local.locator('.flowmcp-try-status[data-status="invalid_arguments"]').waitFor({ state: 'visible', ...WAIT });
    const problems = await local.locator('.flowmcp-try-problems li').allInnerTexts();
    assert.deepEqual(problems.sort(), ['text: is required', 'times: must be >= 1']);

    // The raw-JSON alternative starts from the form, and JSON that does not parse is refused clearly.
    await local.locator('.flowmcp-mode-json').click(WAIT);
    const json = local.locator('.flowmcp-try-json-text');
    assert.deepEqual(JSON.parse(await json.inputValue()), { times: 0 });
    await json.fill('{"text": ');
    await local.locator('.flowmcp-try-run').click(WAIT);
    const refused = local.locator('.flowmcp-try-refused');
    await refused.waitFor({ state: 'visible', ...WAIT });
    assert.match(await refused.innerText(), /^The arguments are not valid JSON: /);
    await json.fill('{"text": "json", "loud": true}');
    await local.locator('.flowmcp-try-run').click(WAIT);
    await local.locator('.flowmcp-try-status[data-status="success"]').waitFor({ state: 'visible', ...WAIT });
    assert.equal(JSON.parse(await local.locator('.flowmcp-try-structured pre').innerText()).echoed, 'JSON');
  });

  it('Try it on an OAuth endpoint with groups asks for confirmation first', { skip }, async () => {
    const team = card(TEAM_SERVER);
    await team.locator('.flowmcp-try summary').click(WAIT);
    // The tool's own groups are said (docs/access.md); the editor may run it all the same.
    assert.equal((await team.locator('.flowmcp-try-access').innerText()).trim(), text.try.allowedGroups.replace('__groups__', 'staff-admins'));
    await team.locator('.flowmcp-try-run').click(WAIT);
    const refused = team.locator('.flowmcp-try-refused');
    await refused.waitFor({ state: 'visible', ...WAIT });
    assert.match(await refused.innerText(), /admits only the groups staff/);
    await team.locator('.flowmcp-try-confirm-groups').check();
    await team.locator('.flowmcp-try-run').click(WAIT);
    await team.locator('.flowmcp-try-status[data-status="success"]').waitFor({ state: 'visible', ...WAIT });
    assert.deepEqual(JSON.parse(await team.locator('.flowmcp-try-text').innerText()).editor, { user: null, groupsOverridden: true });
  });

  it('lists the resources and prompts of an endpoint with who may use each, folded at first', { skip }, async () => {
    const team = card(TEAM_SERVER);
    const section = team.locator('.flowmcp-content');
    assert.equal(await section.evaluate((box) => (box as HTMLDetailsElement).open), false);
    assert.equal((await section.locator('summary').innerText()).trim(), text.content.title);
    await section.locator('summary').click(WAIT);
    await section.locator('.flowmcp-content-item').first().waitFor({ state: 'visible', ...WAIT });
    const rows = await section.locator('.flowmcp-content-item').evaluateAll((items) =>
      items.map((item) => ['kind', 'name', 'uri', 'access'].map((part) => item.querySelector(`.flowmcp-content-${part}`)?.textContent ?? null)),
    );
    assert.deepEqual(rows, [
      [text.content.kind.resource, 'manual', 'plant://manual', text.content.everyone],
      [text.content.kind.template, 'readings', 'plant://readings/{sensor}', text.content.allowedGroups.replace('__groups__', 'staff-admins')],
      [text.content.kind.prompt, 'shift_report', null, text.content.allowedGroups.replace('__groups__', 'maintenance, staff-admins')],
    ]);
    // Opened stays open across the tab's refreshes (remembered per browser, as the other sections).
    await page().locator('.flowmcp-sidebar-refresh').click(WAIT);
    await team.locator('.flowmcp-content[open] .flowmcp-content-item').first().waitFor({ state: 'visible', ...WAIT });
  });

  it('shows recent calls, from the editor and from an MCP client, and follows a deploy', { skip }, async () => {
    const local = card(LOCAL_SERVER);
    await local.locator('.flowmcp-recent-call').first().waitFor({ state: 'visible', ...WAIT });
    const client = await connect(`${base()}/mcp`, 'modern');
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'from a client' } });
    } finally {
      await client.close();
    }
    // The open tab looks again every few seconds; the client's call arrives without a click.
    const fromClient = local.locator('.flowmcp-recent-call', { has: page().locator('.flowmcp-recent-caller', { hasText: text.recent.unknownCaller }) });
    await fromClient.first().waitFor({ state: 'visible', ...WAIT });
    const rows = await local.locator('.flowmcp-recent-call').evaluateAll((items) =>
      items.map((item) => ['tool', 'caller', 'status'].map((part) => item.querySelector(`.flowmcp-recent-${part}`)?.textContent)),
    );
    assert.deepEqual(rows[0], ['echo', text.recent.unknownCaller, text.status.success]);
    assert.ok(rows.some((row) => row[0] === 'broken' && row[1] === 'editor' && row[2] === text.status.error), JSON.stringify(rows));
    assert.ok(rows.some((row) => row[0] === 'echo' && row[1] === 'editor' && row[2] === text.status.invalid_arguments), JSON.stringify(rows));

    // A deploy that adds a tool shows in the list without a click.
    const flows = await nodeRed!.getFlows();
    await nodeRed!.deploy([...flows, tool('sb-extra', { name: 'extra', z: SIDEBAR_TAB })]);
    await page().waitForFunction(
      ({ id, expected }) => document.querySelector(`.flowmcp-endpoint[data-endpoint-id="${id}"] .flowmcp-counts`)?.textContent === expected,
      { id: LOCAL_SERVER, expected: text.counts.tools_other.replace('__count__', '4') },
      WAIT,
    );
  });

  it('kept the session free of page errors and failed palette requests', { skip }, () => {
    const s = session!;
    assert.deepEqual(s.pageErrors, []);
    // The Try-it refusals above are answers the test asked for (400 and 403), nothing else failed.
    assert.deepEqual(s.failedResponses.filter((line) => !/\/mcp-sidebar\/endpoints\/[^/]+\/try$/.test(line)), []);
    assert.deepEqual(s.offHostRequests, []);
  });
});
