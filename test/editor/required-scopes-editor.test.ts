// Required scopes and Scopes by group in the real Node-RED editor (packed palette, headless Chromium).
// A tool, resource or prompt saved before Required scopes existed loads valid; the field refuses what
// lib/access/required-scopes.ts refuses (a scope too long, a character outside RFC 6749's scope-token,
// more than 16) and scopes on an item a Local endpoint would serve. An mcp-auth's Scopes by group is
// judged line by line as lib/auth/scope-grants.ts parses it, and the first line it refuses is named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { catalogFile } from '../support/editor-dialogs.js';
import { cancelOpenDialogs, changeTo, openDialogOf, WAIT } from '../support/editor-page.js';
import { flowServer, oidcAuth, prompt, resource, runtime, storage, tab, tool } from '../support/flows.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

declare const RED: any;

const skip = chromiumMissing();
const RUNTIME = 'ac5c000000000001';
const LOCAL = 'ac5c000000000002';
const SIGNED = 'ac5c000000000003';
const STORAGE = 'ac5c000000000004';
const OPS_TOOL = 'ac5c000000000011';
const AUTH = 'ac5c000000000030';

const say = (type: string, key: string, params: Record<string, string> = {}) =>
  Object.entries(params).reduce((text, [name, value]) => text.replace(`__${name}__`, value), catalogFile('en-US', type).get(key)!);

/** An mcp-auth whose Scopes by group is `scopeGroups` (left out: a configuration saved before the field). */
function auth(id: string, slug: string, scopeGroups?: string) {
  const node = oidcAuth(id, { storage: STORAGE, slug, issuer: 'https://login.example.com/realms/staff', clientId: 'node-red', secretEnv: 'MCP_EDITOR_TEST_SECRET' });
  return scopeGroups === undefined ? node : { ...node, scopeGroups };
}

// Each case's rules and the line the runtime would refuse (null: valid).
const RULES: Record<string, { text?: string; line: number | null }> = {
  old: { line: null },
  empty: { text: '', line: null },
  valid: { text: '# who may change set-points\nplant.write = maintenance, operators\n\n  plant:admin =   admins  \nreports/export = a b,c', line: null },
  noEquals: { text: 'plant.read = staff\n# ok so far\nplant.write maintenance', line: 3 },
  glued: { text: 'plant.write=maintenance', line: 1 },
  noGroups: { text: 'plant.write =', line: 1 },
  signIn: { text: 'plant.write = maintenance\nopenid = staff', line: 2 },
  refresh: { text: 'offline_access = staff', line: 1 },
  twice: { text: 'plant.write = maintenance\nplant.write = operators', line: 2 },
  quote: { text: 'plant"write = maintenance', line: 1 },
  longScope: { text: `${'s'.repeat(129)} = maintenance`, line: 1 },
  longGroup: { text: `plant.write = ${'g'.repeat(257)}`, line: 1 },
  tooMany: { text: Array.from({ length: 65 }, (_, i) => `scope.${i} = staff`).join('\n'), line: 65 },
  sixtyFour: { text: Array.from({ length: 64 }, (_, i) => `scope.${i} = staff`).join('\n'), line: null },
};
const AUTH_IDS = Object.keys(RULES).map((name, i) => [name, `ac5c0000000001${String(i).padStart(2, '0')}`] as const);

describe('Node-RED editor: Required scopes on items, Scopes by group on mcp-auth', () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;

  before(async () => {
    if (skip) return;
    const port = await freePort();
    const sixteen = Array.from({ length: 16 }, (_, i) => `s${i}`);
    const flow = [
      tab(),
      runtime(RUNTIME, port),
      storage(STORAGE, 'memory'),
      flowServer(LOCAL, { runtime: RUNTIME, path: '/mcp' }),
      // Signed in (its mcp-auth is not set up here: the editor judges only the access mode).
      { ...flowServer(SIGNED, { runtime: RUNTIME, path: '/ops' }), access: 'oauth', groups: 'staff' },
      tool('ac5c000000000010', { name: 'old_tool', endpoint: '/ops' }),
      { ...tool(OPS_TOOL, { name: 'ops_tool', endpoint: '/ops' }), requiredScopes: 'plant.write, plant:admin' },
      { ...tool('ac5c000000000012', { name: 'empty_scopes', endpoint: '/ops' }), requiredScopes: '' },
      { ...tool('ac5c000000000013', { name: 'local_tool', endpoint: '/mcp' }), requiredScopes: 'plant.write' },
      { ...tool('ac5c000000000014', { name: 'shared_tool', endpoint: '*' }), requiredScopes: 'plant.write' },
      { ...tool('ac5c000000000015', { name: 'long_scope', endpoint: '/ops' }), requiredScopes: 's'.repeat(129) },
      { ...tool('ac5c000000000016', { name: 'longest_scope', endpoint: '/ops' }), requiredScopes: 's'.repeat(128) },
      { ...tool('ac5c000000000017', { name: 'quoted_scope', endpoint: '/ops' }), requiredScopes: 'plant"write' },
      { ...tool('ac5c000000000018', { name: 'backslash_scope', endpoint: '/ops' }), requiredScopes: 'plant\\write' },
      { ...tool('ac5c000000000019', { name: 'sixteen', endpoint: '/ops' }), requiredScopes: sixteen.join(' ') },
      { ...tool('ac5c00000000001a', { name: 'seventeen', endpoint: '/ops' }), requiredScopes: [...sixteen, 's16'].join(',') },
      // The runtime counts distinct scopes: a repeated one is not a seventeenth.
      { ...tool('ac5c00000000001b', { name: 'repeated', endpoint: '/ops' }), requiredScopes: [...sixteen, 's0'].join('\n') },
      { ...resource('ac5c000000000020', { uri: 'plant://secret', endpoint: '/ops', source: 'static', text: 'x' }), requiredScopes: 'plant.read' },
      { ...resource('ac5c000000000021', { uri: 'plant://local', endpoint: '/mcp', source: 'static', text: 'x' }), requiredScopes: 'plant.read' },
      { ...resource('ac5c000000000022', { uri: 'plant://bad', endpoint: '/ops', source: 'static', text: 'x' }), requiredScopes: 'plant read\\all' },
      prompt('ac5c000000000023', { name: 'old_plan', endpoint: '/mcp' }),
      { ...prompt('ac5c000000000024', { name: 'plan', endpoint: '/ops' }), requiredScopes: 'plant.write' },
      { ...prompt('ac5c000000000025', { name: 'local_plan', endpoint: '/mcp' }), requiredScopes: 'plant.write' },
      auth(AUTH, 'dialog', 'plant.write = maintenance'),
      ...AUTH_IDS.map(([name, id], i) => auth(id, `case-${i}`, RULES[name]!.text)),
    ];
    nodeRed = await startNodeRed(flow, { env: { MCP_EDITOR_TEST_SECRET: 'unused' } });
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: OPS_TOOL, paletteType: 'mcp-tool-registry' });
  });

  after(async () => {
    if (session) await cancelOpenDialogs(session.page);
    await session?.close();
    await nodeRed?.stop();
  });

  it('judges each item’s Required scopes as the runtime reads them, in the catalog’s words', { skip }, async () => {
    const verdicts = await session!.page.evaluate(() => {
      const out: Record<string, unknown> = {};
      RED.nodes.eachNode((node: any) => {
        if (!['mcp-tool-registry', 'mcp-resource', 'mcp-prompt'].includes(node.type)) return;
        const check = RED.nodes.getType(node.type).defaults.requiredScopes;
        out[node.toolName ?? node.uri ?? node.promptName] = check.validate.call(node, node.requiredScopes, {});
      });
      return out;
    });
    const invalid = (type: string) => say(type, 'errors.invalidRequiredScopes');
    const needOauth = (type: string) => say(type, 'errors.requiredScopesNeedOauth');
    assert.deepEqual(verdicts, {
      old_tool: true,
      ops_tool: true,
      empty_scopes: true,
      local_tool: needOauth('mcp-tool-registry'),
      shared_tool: needOauth('mcp-tool-registry'),
      long_scope: invalid('mcp-tool-registry'),
      longest_scope: true,
      quoted_scope: invalid('mcp-tool-registry'),
      backslash_scope: invalid('mcp-tool-registry'),
      sixteen: true,
      seventeen: invalid('mcp-tool-registry'),
      repeated: true,
      'plant://secret': true,
      'plant://local': needOauth('mcp-resource'),
      'plant://bad': invalid('mcp-resource'),
      old_plan: true,
      plan: true,
      local_plan: needOauth('mcp-prompt'),
    });
  });

  it('loads every item saved before the field existed as valid', { skip }, async () => {
    const states = await session!.page.evaluate(() =>
      ['old_tool', 'old_plan'].map((name) => {
        let found: any;
        RED.nodes.eachNode((node: any) => {
          if (node.toolName === name || node.promptName === name) found = node;
        });
        return { name, requiredScopes: found.requiredScopes ?? null, valid: found.valid, errors: found.validationErrors ?? [] };
      }),
    );
    assert.deepEqual(states, [
      { name: 'old_tool', requiredScopes: null, valid: true, errors: [] },
      { name: 'old_plan', requiredScopes: null, valid: true, errors: [] },
    ]);
  });

  it('judges Scopes by group line by line, naming the first line the runtime would refuse', { skip }, async () => {
    const verdicts = await session!.page.evaluate((ids: (readonly [string, string])[]) => {
      const check = RED.nodes.getType('mcp-auth').defaults.scopeGroups;
      return Object.fromEntries(ids.map(([name, id]) => {
        const node = RED.nodes.node(id);
        return [name, check.validate.call(node, node.scopeGroups, {})];
      }));
    }, AUTH_IDS.map(([name, id]) => [name, id] as const));
    const expected = Object.fromEntries(Object.entries(RULES).map(([name, { line }]) =>
      [name, line === null ? true : say('mcp-auth', 'errors.invalidScopeGroups', { line: String(line) })]));
    assert.deepEqual(verdicts, expected);
  });

  it('shows Required scopes in the tool dialog and marks a bad scope as it is typed', { skip }, async () => {
    const page = session!.page;
    await openDialogOf(page, { type: 'mcp-tool-registry', id: OPS_TOOL, field: '#node-input-toolName', config: false });
    const field = page.locator('#node-input-requiredScopes');
    assert.equal(await field.inputValue(), 'plant.write, plant:admin');
    assert.equal(await field.getAttribute('placeholder'), say('mcp-tool-registry', 'placeholder.requiredScopes'));
    assert.equal((await page.locator('label[for="node-input-requiredScopes"]').innerText()).trim(), say('mcp-tool-registry', 'label.requiredScopes'));
    assert.match(await page.locator('.form-tips', { hasText: say('mcp-tool-registry', 'label.requiredScopes') + ':' }).innerText(), /insufficient_scope/);
    assert.equal(await field.evaluate((input) => input.classList.contains('input-error')), false);
    await changeTo(field, 'plant write\\all');
    await page.waitForFunction(() => document.getElementById('node-input-requiredScopes')?.classList.contains('input-error'), undefined, WAIT);
    await cancelOpenDialogs(page);
  });

  it('shows Scopes by group in the mcp-auth dialog and marks a bad rule as it is typed', { skip }, async () => {
    const page = session!.page;
    await openDialogOf(page, { type: 'mcp-auth', id: AUTH, field: '#node-config-input-slug', config: true });
    const field = page.locator('textarea#node-config-input-scopeGroups');
    assert.equal(await field.inputValue(), 'plant.write = maintenance');
    assert.equal((await page.locator('label[for="node-config-input-scopeGroups"]').innerText()).trim(), say('mcp-auth', 'label.scopeGroups'));
    assert.equal(await field.evaluate((input) => input.classList.contains('input-error')), false);
    await changeTo(field, 'plant.write = maintenance\nemail = staff');
    await page.waitForFunction(() => document.getElementById('node-config-input-scopeGroups')?.classList.contains('input-error'), undefined, WAIT);
    await cancelOpenDialogs(page);
  });
});
