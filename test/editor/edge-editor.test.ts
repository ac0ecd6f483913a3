// The mcp-flow-server dialog's "Edge relaying" section in the real Node-RED editor (packed palette,
// headless Chromium): an endpoint saved before edge relaying loads valid with the section closed, each
// field refuses what parseFlowServerConfig refuses with the catalog's words, the sites need a storage
// (and a memory one is called out), and what was typed is what the node saves. The endpoint's other
// number fields (the shared whole-number check) are held to the runtime the same way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';
import { catalogKey, McpPaletteError } from '../../lib/core/errors.js';
import { catalogFile } from '../support/editor-dialogs.js';
import { cancelOpenDialogs, changeTo, openNodeDialog, WAIT } from '../support/editor-page.js';
import { flowServer, runtime, storage, tab, TAB } from '../support/flows.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

declare const RED: any;

const SERVER = 'ed9e000000000001';
const RUNTIME = 'ed9e000000000002';
const MEMORY = 'ed9e000000000003';
const REDIS = 'ed9e000000000004';
const skip = chromiumMissing();
const text = catalogFile('en-US', 'mcp-flow-server');
const say = (key: string, params: Record<string, string> = {}) =>
  Object.entries(params).reduce((line, [name, value]) => line.replace(`__${name}__`, value), text.get(key)!);

type Fields = Record<string, unknown[]>;

/** Each value as the runtime judges it: accepted (true), or the catalog text of its failure code. */
function runtimeVerdicts(fields: Fields): Record<string, unknown[]> {
  const verdict = (field: string, value: unknown) => {
    try {
      parseFlowServerConfig({ [field]: value });
      return true;
    } catch (error) {
      assert.ok(error instanceof McpPaletteError);
      return say(`errors.${catalogKey(error.code)}`);
    }
  };
  const verdicts = Object.fromEntries(Object.entries(fields).map(([field, values]) => [field, values.map((value) => verdict(field, value))]));
  // The runtime refuses something of every field, so a comparison with the editor can fail.
  for (const each of Object.values(verdicts)) assert.ok(each.includes(true) && each.some((one) => one !== true));
  return verdicts;
}

describe('Node-RED editor: edge relaying on mcp server', () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;
  const page = () => session!.page;

  before(async () => {
    if (skip) return;
    const port = await freePort();
    // The Redis storage is never reached here (the editor only reads its mode); its URL is a closed port.
    const flow = [tab(), runtime(RUNTIME, port), flowServer(SERVER, { runtime: RUNTIME }), storage(MEMORY, 'memory'), storage(REDIS, 'redis', 'MCP_EDGE_EDITOR_REDIS_URL')];
    nodeRed = await startNodeRed(flow, { env: { MCP_EDGE_EDITOR_REDIS_URL: 'redis://127.0.0.1:1' } });
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: SERVER, paletteType: 'mcp-flow-server' });
  });

  after(async () => {
    if (session) await cancelOpenDialogs(session.page);
    await session?.close();
    await nodeRed?.stop();
  });

  it('accepts an endpoint saved before edge relaying, and checks each field as the runtime does', { skip }, async () => {
    const p = page();
    const old = await p.evaluate((id) => {
      const node = RED.nodes.node(id);
      return { edgeSite: node.edgeSite, hubSites: node.hubSites, valid: node.valid, tab: node.z };
    }, SERVER);
    assert.deepEqual(old, { edgeSite: undefined, hubSites: undefined, valid: true, tab: TAB });

    const FIELDS = {
      edgeSite: [undefined, '', 'plant-a', ' plant-a ', 'Plant-A', '-a', 'a'.repeat(32), 'a'.repeat(33), 'plant_a'],
      hubSites: [undefined, '', 'plant-a, plant-b', 'plant-a plant-b,, plant-c', 'plant-a, Plant-B', 'a'.repeat(33)],
      edgeNaming: [undefined, '', '{site}.{tool}', '{tool}@{site}', '{site}-{tool}', '{site}{tool}', '{site}x-{tool}', '{site}x_{tool}', '{tool}', '{site}', `{site}.{tool}${'x'.repeat(51)}`, `{site}.{tool}${'x'.repeat(52)}`],
      edgeUriNaming: [undefined, '', '  ', 'edge://{site}/{uri}', ' {uri}#{site} ', 'edge+{site}:{uri}', '{site}:{uri}', 'x://{site}/{uri}$&', '{site}/{uri}', '1edge://{site}/{uri}', 'edge://{site}/ {uri}', 'edge://{site}-{uri}', 'edge://{site}{uri}', '{uri}-{site}', '{uri}', 'edge://{site}/{tool}', 'edge://{site}/{uri}/{uri}', `edge://{site}/{uri}#${'x'.repeat(108)}`, `edge://{site}/{uri}#${'x'.repeat(109)}`],
      maxPendingPerSite: [undefined, '', '1', 32, '10000', '0', '10001', '2.5', 'eight'],
    };
    const expected = runtimeVerdicts(FIELDS);
    const editor = await p.evaluate((fields) => {
      const defaults = RED.nodes.getType('mcp-flow-server').defaults;
      // A node outside the dialog is judged by what it saved, as on import and deploy.
      const check = (field: string, value: unknown, self: object) => defaults[field].validate.call(self, value, {});
      const verdicts = Object.fromEntries(Object.entries(fields).map(([field, values]) => [field, values.map((value) => check(field, value, { storage: 'ed9e000000000003' }))]));
      return { verdicts, siteWithoutStorage: check('edgeSite', 'plant-a', {}), sitesWithoutStorage: check('hubSites', 'plant-a', {}) };
    }, FIELDS);
    assert.deepEqual(editor.verdicts, expected);
    // The runtime takes sites without a storage and relays nothing; the editor says so.
    assert.equal(editor.siteWithoutStorage, say('errors.edgeNeedsStorage'));
    assert.equal(editor.sitesWithoutStorage, say('errors.edgeNeedsStorage'));
  });

  it('checks the whole-number fields as the runtime does: missing, null or empty is the default, spaces are not', { skip }, async () => {
    const blankOrBad = [undefined, null, '', '  ', [], '7', ' 7 ', 7, '0', '2.5', 'eight'];
    const FIELDS: Fields = {
      maxStreams: [...blankOrBad, '100000', '100001'],
      maxTasks: [...blankOrBad, '10000', '10001'],
      maxTasksPerCaller: [...blankOrBad, '10000', '10001'],
      taskTtl: [...blankOrBad, '60', '59', '604800', '604801'],
      maxTaskResultKb: [...blankOrBad, '1024', '1025'],
      maxPendingPerSite: [...blankOrBad, '10000', '10001'],
    };
    const editor = await page().evaluate((fields) => {
      const defaults = RED.nodes.getType('mcp-flow-server').defaults;
      return Object.fromEntries(Object.entries(fields).map(([field, values]) => [field, values.map((value) => defaults[field].validate.call({}, value, {}))]));
    }, FIELDS);
    assert.deepEqual(editor, runtimeVerdicts(FIELDS));
  });

  it('opens the section closed, marks bad values and a missing storage, and saves what was typed', { skip }, async () => {
    const p = page();
    const section = p.locator('#mcp-flow-server-edge-section');
    const summary = p.locator('#mcp-flow-server-edge-summary');
    const warning = p.locator('#mcp-flow-server-edge-warning');
    const marked = (field: string) => p.locator(`#node-input-${field}.input-error`);
    const type = (field: string, value: string) => changeTo(p.locator(`#node-input-${field}`), value);

    await openNodeDialog(p, SERVER, '#node-input-serverName');
    assert.equal(await section.isVisible(), false, 'closed while nothing is set');
    assert.equal((await summary.innerText()).trim(), say('tip.edgeOff'));
    await p.locator('#mcp-flow-server-edge-toggle').click(WAIT);
    await section.waitFor({ state: 'visible', ...WAIT });
    // An old node shows the defaults the runtime would use.
    assert.equal(await p.locator('#node-input-edgeNaming').inputValue(), '{site}.{tool}');
    assert.equal(await p.locator('#node-input-edgeNaming').getAttribute('placeholder'), '{site}.{tool}');
    assert.equal(await p.locator('#node-input-edgeUriNaming').inputValue(), 'edge://{site}/{uri}');
    assert.equal(await p.locator('#node-input-edgeUriNaming').getAttribute('placeholder'), 'edge://{site}/{uri}');

    await type('edgeSite', 'Plant A');
    await marked('edgeSite').waitFor({ state: 'attached', ...WAIT });
    // A good name without a storage is still marked, and the section says why.
    await type('edgeSite', 'plant-a');
    await warning.waitFor({ state: 'visible', ...WAIT });
    assert.equal((await warning.innerText()).trim(), say('errors.edgeNeedsStorage'));
    assert.equal(await marked('edgeSite').count(), 1);
    // A memory storage relays only inside this process: allowed, and said so.
    await p.locator('#node-input-storage').selectOption(MEMORY);
    await marked('edgeSite').waitFor({ state: 'detached', ...WAIT });
    assert.equal((await warning.innerText()).trim(), say('tip.edgeMemoryStorage'));
    await p.locator('#node-input-storage').selectOption(REDIS);
    await warning.waitFor({ state: 'hidden', ...WAIT });

    // Each field is marked for a value its check refuses, and unmarked again for one it accepts.
    for (const [field, refused, accepted] of [
      ['hubSites', 'plant-b, Plant_C', 'plant-b plant-c'],
      ['edgeNaming', '{tool}', '{site}_{tool}'],
      ['edgeUriNaming', '{site}/{uri}', '{uri}#{site}'],
      ['maxPendingPerSite', '0', '8'],
    ] as const) {
      await type(field, refused);
      await marked(field).waitFor({ state: 'attached', ...WAIT });
      await type(field, accepted);
      await marked(field).waitFor({ state: 'detached', ...WAIT });
    }

    await p.locator('#node-dialog-ok').click(WAIT);
    await section.waitFor({ state: 'detached', ...WAIT });
    const saved = await p.evaluate((id) => {
      const node = RED.nodes.node(id);
      return { edgeSite: node.edgeSite, hubSites: node.hubSites, edgeNaming: node.edgeNaming, edgeUriNaming: node.edgeUriNaming, maxPendingPerSite: node.maxPendingPerSite, storage: node.storage, valid: node.valid };
    }, SERVER);
    assert.deepEqual(saved, { edgeSite: 'plant-a', hubSites: 'plant-b plant-c', edgeNaming: '{site}_{tool}', edgeUriNaming: '{uri}#{site}', maxPendingPerSite: '8', storage: REDIS, valid: true });

    // Reopened, the section is open (something is set) and its summary names both roles.
    await openNodeDialog(p, SERVER, '#node-input-serverName');
    await section.waitFor({ state: 'visible', ...WAIT });
    assert.equal(await summary.isVisible(), false);
    await p.locator('#mcp-flow-server-edge-toggle').click(WAIT);
    await section.waitFor({ state: 'hidden', ...WAIT });
    assert.equal((await summary.innerText()).trim(), `${say('tip.edgeOffers', { site: 'plant-a' })} ${say('tip.edgeServes', { sites: 'plant-b, plant-c' })}`);
    // Taking the storage away makes the saved sites invalid (the runtime would relay nothing).
    await p.locator('#node-input-storage').selectOption('_ADD_');
    await marked('edgeSite').waitFor({ state: 'attached', ...WAIT });
    assert.equal(await marked('hubSites').count(), 1);
    await cancelOpenDialogs(p);

    await p.evaluate(() => RED.history.pop());
    const restored = await p.evaluate((id) => {
      const node = RED.nodes.node(id);
      return { edgeSite: node.edgeSite, hubSites: node.hubSites, valid: node.valid, dirty: RED.nodes.dirty() };
    }, SERVER);
    assert.deepEqual(restored, { edgeSite: undefined, hubSites: undefined, valid: true, dirty: false });
  });
});
