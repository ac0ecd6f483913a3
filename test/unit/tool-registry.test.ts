import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpPaletteError } from '../../lib/core/errors.js';
import { parseToolConfig, type ToolDefinition } from '../../lib/mcp/tool-definition.js';
import { ToolRegistry, describeBinding } from '../../lib/mcp/tool-registry.js';

function tool(name: string, endpoint: string): ToolDefinition {
  return parseToolConfig({ toolName: name, endpoint, inputSchema: '{"type":"object"}' });
}

function names(registry: ToolRegistry, path: string): string[] {
  return registry.catalogFor(path).listResult.tools.map((listed) => listed.name);
}

function isDuplicate(name: string) {
  return (error: unknown) => error instanceof McpPaletteError && error.code === 'duplicate_tool' && error.params.tool === name;
}

describe('ToolRegistry', () => {
  it('serves a registered tool on its path and stops after unregister', () => {
    const registry = new ToolRegistry();
    registry.register('node-1', tool('weather', '/mcp'));
    assert.deepEqual(names(registry, '/mcp'), ['weather']);
    registry.unregister('node-1');
    assert.deepEqual(names(registry, '/mcp'), []);
  });

  it('builds a catalog from path-bound and shared tools, without other paths\' tools', () => {
    const registry = new ToolRegistry();
    registry.register('a', tool('weather', '/mcp'));
    registry.register('b', tool('clock', '*'));
    registry.register('c', tool('billing', '/admin'));
    assert.deepEqual(names(registry, '/mcp'), ['clock', 'weather']);
    assert.deepEqual(names(registry, '/admin'), ['billing', 'clock']);
    assert.deepEqual(names(registry, '/other'), ['clock']);
  });

  it('adds lower-precedence tools (a hub’s edge tools) last: a name declared or built in keeps its own, the other is refused', () => {
    const registry = new ToolRegistry();
    registry.register('a', tool('weather', '/hub'));
    const builtIn = [tool('get_flow', '*')];
    const edge = [tool('weather', '*'), tool('get_flow', '*'), tool('pump', '*')];
    const refused: string[] = [];
    const catalog = registry.catalogFor('/hub', builtIn, undefined, edge, (clash, reason) => refused.push(`${clash.name} ${reason}`));
    assert.deepEqual(catalog.listResult.tools.map((listed) => listed.name), ['get_flow', 'pump', 'weather']);
    assert.equal(catalog.find('weather'), registry.catalogFor('/hub').find('weather'), 'the declared weather, not the edge one');
    assert.equal(catalog.find('get_flow'), builtIn[0]);
    assert.deepEqual(refused, ['weather taken', 'get_flow taken']);
  });

  it('serves neither of two lower-precedence tools that claim one name, whatever their order, and reports both', () => {
    const registry = new ToolRegistry();
    const stolen = { ...tool('plant-a-open_valve', '*'), relay: { site: 'plant', tool: 'a-open_valve' } };
    const real = { ...tool('plant-a-open_valve', '*'), relay: { site: 'plant-a', tool: 'open_valve' } };
    for (const edge of [[stolen, real, tool('pump', '*')], [real, stolen, tool('pump', '*')]]) {
      const refused: string[] = [];
      const catalog = registry.catalogFor('/hub', [], undefined, edge, (clash, reason) => refused.push(`${clash.relay?.site} ${reason}`));
      assert.deepEqual(catalog.listResult.tools.map((listed) => listed.name), ['pump']);
      assert.equal(catalog.find('plant-a-open_valve'), undefined);
      assert.deepEqual(refused.sort(), ['plant claimed_twice', 'plant-a claimed_twice']);
    }
  });

  it('refuses the same name twice on one path with duplicate_tool naming the other owner', () => {
    const registry = new ToolRegistry();
    registry.register('first', tool('weather', '/mcp'));
    assert.throws(
      () => registry.register('second', tool('weather', '/mcp')),
      (error: unknown) => isDuplicate('weather')(error) && (error as McpPaletteError).params.other === 'first',
    );
    assert.equal(registry.catalogFor('/mcp').size, 1, 'the refused tool is not registered');
  });

  it('refuses a shared tool whose name is already used on a path, and the reverse', () => {
    const registry = new ToolRegistry();
    registry.register('path-tool', tool('weather', '/mcp'));
    assert.throws(() => registry.register('shared-tool', tool('weather', '*')), isDuplicate('weather'));

    const other = new ToolRegistry();
    other.register('shared-tool', tool('weather', '*'));
    assert.throws(() => other.register('path-tool', tool('weather', '/anything')), isDuplicate('weather'));
  });

  it('allows the same name on two different paths', () => {
    const registry = new ToolRegistry();
    registry.register('a', tool('weather', '/one'));
    registry.register('b', tool('weather', '/two'));
    assert.equal(registry.catalogFor('/one').find('weather')?.binding.shared, false);
    assert.deepEqual(names(registry, '/one'), ['weather']);
    assert.deepEqual(names(registry, '/two'), ['weather']);
  });

  it('replaces the tool when the same owner registers again (a redeploy)', () => {
    const registry = new ToolRegistry();
    registry.register('node-1', tool('weather', '/mcp'));
    registry.register('node-1', tool('weather', '/mcp'));
    assert.equal(registry.catalogFor('/mcp').size, 1);
    registry.register('node-1', tool('forecast', '/mcp'));
    assert.deepEqual(names(registry, '/mcp'), ['forecast']);
  });

  it('frees a name for other owners once its owner unregisters', () => {
    const registry = new ToolRegistry();
    registry.register('old', tool('weather', '/mcp'));
    registry.unregister('old');
    registry.register('new', tool('weather', '/mcp'));
    assert.deepEqual(names(registry, '/mcp'), ['weather']);
  });

  it('ignores unregistering an unknown owner', () => {
    const registry = new ToolRegistry();
    registry.register('a', tool('weather', '/mcp'));
    registry.unregister('never-registered');
    assert.deepEqual(names(registry, '/mcp'), ['weather']);
  });
});

describe('describeBinding', () => {
  it('names the path or all endpoints', () => {
    assert.equal(describeBinding({ shared: false, path: '/mcp' }), '/mcp');
    assert.equal(describeBinding({ shared: true }), 'all endpoints');
  });
});
