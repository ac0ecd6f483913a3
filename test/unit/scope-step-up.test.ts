import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { missingScopes, parseRequiredScopes } from '../../lib/access/required-scopes.js';
import { requestedScope } from '../../lib/auth/bridge/authorize.js';
import { offeredScopes } from '../../lib/auth/bridge/metadata.js';
import { parseScopeGrants, ScopeGrants } from '../../lib/auth/scope-grants.js';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';
import { McpPaletteError } from '../../lib/core/errors.js';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { refuseUnkeptAccess } from '../../lib/mcp/deploy-access-checks.js';
import { Deployed } from '../../lib/mcp/endpoint/deployed.js';
import { itemsLackingScopes, lackingScopes } from '../../lib/mcp/endpoint/scope-step-up.js';
import { securitySchemesFor } from '../../lib/mcp/security-schemes.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';

const tool = (name: string, extra: Record<string, string> = {}) => parseToolConfig({ toolName: name, endpoint: '/mcp', inputSchema: '{"type":"object"}', ...extra });
const resource = (uri: string, extra: Record<string, string> = {}) =>
  parseResourceConfig({ resourceName: uri.replace(/\W+/g, '-'), uri, endpoint: '/mcp', source: 'static', text: 'x', ...extra });
const prompt = (name: string, extra: Record<string, string> = {}) => parsePromptConfig({ promptName: name, endpoint: '/mcp', messages: [{ role: 'user', text: 'hi' }], ...extra });
const code = (expected: string) => (error: unknown) => error instanceof McpPaletteError && error.code === expected;
const call = (method: string, params: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method, params });

describe('Required scopes as the editor saves them', () => {
  it('reads empty text, and a flow saved before the field existed, as none', () => {
    for (const value of [undefined, null, '', ' , ']) assert.equal(parseRequiredScopes(value), undefined);
  });

  it('splits on commas and whitespace, drops repeats and sorts', () => {
    assert.deepEqual(parseRequiredScopes('setpoints:write, plant.read\nsetpoints:write'), ['plant.read', 'setpoints:write']);
  });

  it('refuses what is no RFC 6749 scope token, a scope over 128 characters, more than 16, and anything but text', () => {
    for (const value of ['a"b', 'a\\b', 'grüße', 'x'.repeat(129), Array.from({ length: 17 }, (_, i) => `s${i}`).join(' '), 42]) {
      assert.throws(() => parseRequiredScopes(value), code('invalid_required_scopes'), String(value).slice(0, 20));
    }
    assert.deepEqual(parseRequiredScopes('x'.repeat(128)), ['x'.repeat(128)]);
  });

  it('names what a token lacks, and everything when it has no scopes at all', () => {
    assert.deepEqual(missingScopes(['a', 'b'], ['b', 'c']), ['a']);
    assert.deepEqual(missingScopes(['a'], undefined), ['a']);
    assert.deepEqual(missingScopes(['a'], ['a']), []);
  });
});

describe('Scopes by group on mcp-auth', () => {
  const grants = parseScopeGrants('# step-up scopes\nsetpoints:write = maintenance, ops\n\nreports:read = staff');

  it('reads one rule per line, skipping blank lines and comments', () => {
    assert.deepEqual(grants.scopes, ['setpoints:write', 'reports:read']);
    assert.deepEqual(grants.groupsFor('setpoints:write'), ['maintenance', 'ops']);
    assert.equal(grants.has('openid'), false);
    assert.equal(parseScopeGrants(''), ScopeGrants.none);
    assert.equal(parseScopeGrants(undefined), ScopeGrants.none);
  });

  it('refuses a bad line with its number: no separator, no group, a sign-in scope, a repeat, a long group, too many rules', () => {
    const refusedAt = (text: string, line: number) =>
      assert.throws(() => parseScopeGrants(text), (error: unknown) => code('invalid_scope_groups')(error) && (error as McpPaletteError).params['line'] === String(line), text.slice(0, 40));
    refusedAt('setpoints:write maintenance', 1);
    refusedAt('ok = a\nsetpoints:write =', 2);
    refusedAt('openid = staff', 1);
    refusedAt('offline_access = staff', 1);
    refusedAt('a = x\n\na = y', 3);
    refusedAt(`a = ${'g'.repeat(257)}`, 1);
    refusedAt('a"b = staff', 1);
    refusedAt(Array.from({ length: 65 }, (_, i) => `s${i} = staff`).join('\n'), 65);
  });

  it('lets a user hold a scope by group only while in one of its groups; the sign-in scopes always', () => {
    assert.deepEqual(grants.allowed(['openid', 'setpoints:write', 'reports:read'], ['ops']), ['openid', 'setpoints:write']);
    assert.deepEqual(grants.allowed(['openid', 'setpoints:write'], []), ['openid']);
    const same = ['openid'];
    assert.equal(ScopeGrants.none.allowed(same, []), same, 'nothing to judge costs nothing');
  });

  it('offers the extra scopes in the metadata after the sign-in scopes', () => {
    assert.deepEqual(offeredScopes({ scopes: ['openid', 'email'], scopeGrants: grants }), ['openid', 'email', 'setpoints:write', 'reports:read']);
  });

  it('grants a client asking for nothing only the sign-in scopes; a scope by group only when asked for', () => {
    const own = ['openid', 'email'];
    assert.deepEqual(requestedScope(undefined, own, grants.scopes), own);
    assert.deepEqual(requestedScope('nonsense', own, grants.scopes), own);
    assert.deepEqual(requestedScope('openid setpoints:write other', own, grants.scopes), ['openid', 'setpoints:write']);
  });
});

describe('the step-up check of a request', () => {
  const deployed = new Deployed();
  deployed.tools = new ToolCatalog([tool('read_state'), tool('set_point', { requiredScopes: 'setpoints:write' }), tool('hidden', { requiredScopes: 'secret', allowedGroups: 'admins' })]);
  deployed.setContent(
    new ContentCatalog(
      [resource('plant://state'), resource('plant://logs/{day}', { requiredScopes: 'logs:read' })],
      [prompt('summary'), prompt('plan', { requiredScopes: 'plans:write reports:read' })],
    ),
  );
  const member = { subject: 'u', groups: ['staff'], scopes: ['openid'] };
  const view = deployed.viewFor(member);

  it('is skipped for a deploy without required scopes', () => {
    const plain = new Deployed();
    plain.tools = new ToolCatalog([tool('read_state')]);
    assert.equal(plain.scoped, false);
    assert.equal(deployed.scoped, true);
  });

  it('names the tool, the declared template and the prompt whose scopes the token lacks', () => {
    assert.deepEqual(itemsLackingScopes(call('tools/call', { name: 'set_point', arguments: {} }), view, member), [{ kind: 'tool', name: 'set_point', lacking: ['setpoints:write'] }]);
    assert.deepEqual(itemsLackingScopes(call('resources/read', { uri: 'plant://logs/monday' }), view, member), [{ kind: 'resource', name: 'plant://logs/{day}', lacking: ['logs:read'] }]);
    const items = itemsLackingScopes([call('prompts/get', { name: 'plan' }), call('tools/call', { name: 'set_point' })], view, { ...member, scopes: ['reports:read'] });
    assert.deepEqual(lackingScopes(items), ['plans:write', 'setpoints:write'], 'one challenge names every scope the batch needs');
  });

  it('lets through a token with the scopes, items without scopes, other methods and malformed requests', () => {
    const holder = { ...member, scopes: ['setpoints:write', 'logs:read'] };
    assert.deepEqual(itemsLackingScopes(call('tools/call', { name: 'set_point' }), view, holder), []);
    assert.deepEqual(itemsLackingScopes(call('resources/read', { uri: 'plant://logs/x' }), view, holder), []);
    for (const body of [call('tools/call', { name: 'read_state' }), call('tools/list', {}), call('tools/call', { name: 42 }), { method: 'tools/call' }, null, 'x']) {
      assert.deepEqual(itemsLackingScopes(body, view, member), [], JSON.stringify(body));
    }
  });

  it('never challenges for an item the caller may not see: it is answered as one nobody serves', () => {
    assert.deepEqual(itemsLackingScopes(call('tools/call', { name: 'hidden' }), view, member), []);
    const admin = { subject: 'a', groups: ['admins'], scopes: [] };
    assert.deepEqual(itemsLackingScopes(call('tools/call', { name: 'hidden' }), deployed.viewFor(admin), admin), [{ kind: 'tool', name: 'hidden', lacking: ['secret'] }]);
  });
});

describe('securitySchemes per tool', () => {
  it('adds a tool’s required scopes to the endpoint’s OAuth scopes, and leaves other tools as they were', () => {
    const catalog = new ToolCatalog([tool('read_state'), tool('set_point', { requiredScopes: 'setpoints:write' })], securitySchemesFor('oauth', ['openid', 'email']));
    const schemes = Object.fromEntries(catalog.listResult.tools.map((listed) => [listed.name, [(listed as any).securitySchemes, (listed._meta as any).securitySchemes]]));
    assert.deepEqual(schemes['read_state'], [[{ type: 'oauth2', scopes: ['openid', 'email'] }], [{ type: 'oauth2', scopes: ['openid', 'email'] }]]);
    assert.deepEqual(schemes['set_point'], [[{ type: 'oauth2', scopes: ['openid', 'email', 'setpoints:write'] }], [{ type: 'oauth2', scopes: ['openid', 'email', 'setpoints:write'] }]]);
  });
});

describe('a deploy whose required scopes cannot be kept', () => {
  const auth = { scopes: ['openid', 'email'], scopeGrants: parseScopeGrants('setpoints:write = maintenance') };
  const oauth = parseFlowServerConfig({ access: 'oauth', groups: 'staff' });
  const local = parseFlowServerConfig({});

  it('refuses scopes on a Local endpoint, naming the item', () => {
    for (const [tools, content, item] of [
      [[tool('set_point', { requiredScopes: 'setpoints:write' })], undefined, 'tool set_point'],
      [[], new ContentCatalog([resource('plant://x', { requiredScopes: 'a' })], []), 'resource plant://x'],
      [[], new ContentCatalog([], [prompt('plan', { requiredScopes: 'a' })]), 'prompt plan'],
    ] as const) {
      assert.throws(
        () => refuseUnkeptAccess(local, undefined, { tools: new ToolCatalog([...tools]), content }),
        (error: unknown) => code('item_scopes_need_oauth')(error) && (error as McpPaletteError).params['item'] === item,
      );
    }
  });

  it('refuses a scope the endpoint’s sign-in does not issue; accepts a sign-in scope and a scope by group', () => {
    assert.throws(
      () => refuseUnkeptAccess(oauth, auth, { tools: new ToolCatalog([tool('set_point', { requiredScopes: 'setpoint:write' })]), content: undefined }),
      (error: unknown) => code('unknown_required_scope')(error) && (error as McpPaletteError).params['scope'] === 'setpoint:write',
    );
    refuseUnkeptAccess(oauth, auth, { tools: new ToolCatalog([tool('set_point', { requiredScopes: 'setpoints:write email' })]), content: new ContentCatalog([], [prompt('p', { requiredScopes: 'openid' })]) });
  });
});
