import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
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
});
