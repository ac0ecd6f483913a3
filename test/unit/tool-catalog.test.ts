import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { securitySchemesFor } from '../../lib/mcp/security-schemes.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig, type ToolDefinition } from '../../lib/mcp/tool-definition.js';

function tool(name: string): ToolDefinition {
  return parseToolConfig({ toolName: name, endpoint: '/mcp', inputSchema: '{"type":"object"}', description: `the ${name} tool` });
}

describe('ToolCatalog', () => {
  it('lists tools sorted by name, whatever the declaration order', () => {
    const catalog = new ToolCatalog([tool('zeta'), tool('alpha'), tool('mid')]);
    assert.deepEqual(catalog.listResult.tools.map((listed) => listed.name), ['alpha', 'mid', 'zeta']);
  });

  it('lists exactly the tool listings', () => {
    const definitions = [tool('b'), tool('a')];
    const catalog = new ToolCatalog(definitions);
    assert.deepEqual(catalog.listResult.tools, [definitions[1]!.listing, definitions[0]!.listing]);
  });

  it('prebuilds a frozen list result', () => {
    assert.ok(Object.isFrozen(new ToolCatalog([tool('a')]).listResult));
  });

  it('finds a tool by name and returns undefined for an unknown name', () => {
    const weather = tool('weather');
    const catalog = new ToolCatalog([tool('clock'), weather]);
    assert.equal(catalog.find('weather'), weather);
    assert.equal(catalog.find('nope'), undefined);
  });

  it('counts its tools', () => {
    assert.equal(new ToolCatalog([tool('a'), tool('b'), tool('c')]).size, 3);
  });

  it('has an empty catalog with no tools', () => {
    assert.equal(ToolCatalog.empty.size, 0);
    assert.deepEqual(ToolCatalog.empty.listResult.tools, []);
    assert.equal(ToolCatalog.empty.find('anything'), undefined);
  });

  it('adds the endpoint\'s security schemes to every listing, top level and under _meta, keeping the tool\'s own _meta', () => {
    const withMeta = { ...tool('b'), listing: { ...tool('b').listing, _meta: { 'example/keep': true } } };
    const schemes = securitySchemesFor('oauth', ['openid', 'profile', 'email', 'groups']);
    const catalog = new ToolCatalog([withMeta, tool('a')], schemes);
    const expected = [{ type: 'oauth2', scopes: ['openid', 'profile', 'email', 'groups'] }];
    const [a, b] = catalog.listResult.tools as Array<Record<string, unknown> & { _meta?: Record<string, unknown> }>;
    assert.deepEqual(a!['securitySchemes'], expected);
    assert.deepEqual(a!._meta, { securitySchemes: expected });
    assert.deepEqual(b!['securitySchemes'], expected);
    assert.deepEqual(b!._meta, { 'example/keep': true, securitySchemes: expected });
  });
});

describe('securitySchemesFor', () => {
  it('names the mcp-auth scopes as they are: offline_access only when refresh put it there', () => {
    assert.deepEqual(securitySchemesFor('oauth', ['openid', 'email']), [{ type: 'oauth2', scopes: ['openid', 'email'] }]);
    assert.deepEqual(securitySchemesFor('oauth', ['openid', 'email', 'offline_access']), [{ type: 'oauth2', scopes: ['openid', 'email', 'offline_access'] }]);
  });

  it('says noauth for Local access', () => {
    assert.deepEqual(securitySchemesFor('local'), [{ type: 'noauth' }]);
  });
});
