import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  GROUP_INNER,
  GROUP_OUTER,
  LONG_CODE_CHARS,
  SUBFLOW,
  TAB_MAIN,
  TAB_OFF,
  TAB_OTHER,
  startGetFlowHarness,
  type GetFlowHarness,
} from '../support/flow-fixtures.js';
import { GET_FLOW_LIMITS } from '../../lib/admin/limits.js';

type Entry = Record<string, unknown>;

function list(value: unknown): Entry[] {
  assert.ok(Array.isArray(value), 'expected a list');
  return value as Entry[];
}

function ids(value: unknown): string[] {
  return list(value).map((entry) => entry.id as string);
}

describe('get_flow modes against a Node-RED-shaped admin API', () => {
  let flow: GetFlowHarness;
  before(async () => {
    flow = await startGetFlowHarness();
  });
  after(async () => {
    // Whatever the modes asked, the admin API saw only GETs of /flow/:id and /flow/global.
    assert.ok(flow.api.requests.length > 0);
    for (const request of flow.api.requests) {
      assert.equal(request.method, 'GET');
      assert.match(request.url, /^\/flow\/[^/]+$/);
      assert.notEqual(request.url, '/flows');
      assert.ok(request.authorized);
    }
    await flow.close();
  });

  describe('tool definition', () => {
    it('is get_flow: read-only, idempotent, closed-world, with both schemas and a timeout above one admin read', () => {
      const tool = flow.tool;
      assert.equal(tool.name, 'get_flow');
      assert.equal(tool.listing.name, 'get_flow');
      assert.equal(tool.listing.annotations?.readOnlyHint, true);
      assert.equal(tool.listing.annotations?.idempotentHint, true);
      assert.equal(tool.listing.annotations?.openWorldHint, false);
      assert.equal(tool.listing.inputSchema.type, 'object');
      assert.equal(tool.listing.outputSchema?.type, 'object');
      assert.deepEqual(tool.outputSchema, tool.listing.outputSchema);
      assert.ok(tool.timeoutMs >= 15_000);
      assert.equal(tool.binding.shared, false);
      assert.equal(typeof tool.runInProcess, 'function');
    });

    it('checks arguments with the compiled input schema', () => {
      assert.deepEqual(flow.tool.checkArguments({}), []);
      assert.deepEqual(flow.tool.checkArguments({ mode: 'node', id: 'a', nodeId: 'b', includeCode: true }), []);
      assert.ok(flow.tool.checkArguments({ mode: 'everything' }).length > 0);
      assert.ok(flow.tool.checkArguments({ offset: -1 }).length > 0);
      assert.ok(flow.tool.checkArguments({ offset: 1.5 }).length > 0);
      assert.ok(flow.tool.checkArguments({ id: '' }).length > 0);
      assert.ok(flow.tool.checkArguments({ unexpected: 1 }).length > 0);
    });

    it('rejects structured content that breaks the output schema', () => {
      assert.ok(flow.tool.checkStructuredContent!({ mode: 'tabs' }).length > 0);
      assert.ok(flow.tool.checkStructuredContent!({ mode: 'tabs', meta: {}, redactedProperties: [], omittedProperties: [], surprise: 1 }).length > 0);
    });
  });

  describe('tabs', () => {
    it('lists tab ids, labels, disabled state and counts from memory, without an admin read', async () => {
      const before = flow.api.requests.length;
      const { data, answer } = await flow.call();
      assert.equal(flow.api.requests.length, before);
      assert.equal(data.mode, 'tabs');
      assert.deepEqual(data.tabs, [
        { id: TAB_MAIN, label: 'Main tools', disabled: false, nodeCount: 16, groupCount: 2, configCount: 1 },
        { id: TAB_OTHER, label: 'Other', disabled: false, nodeCount: 4, groupCount: 0, configCount: 0 },
        { id: TAB_OFF, label: 'Switched off', disabled: true, nodeCount: 2, groupCount: 0, configCount: 0 },
      ]);
      assert.equal(data.meta.source, 'runtime-index');
      assert.deepEqual(data.meta.reads, []);
      assert.equal(data.meta.total, 3);
      assert.equal(data.meta.nextOffset, undefined);
      assert.equal(data.meta.truncated, false);
      assert.equal(answer.mode, 'tabs');
      assert.equal(typeof answer.cached, 'boolean');
    });

    it('is also what mode "tabs" and an offset give', async () => {
      const { data } = await flow.call({ mode: 'tabs', offset: 2 });
      assert.deepEqual(ids(data.tabs), [TAB_OFF]);
      assert.equal(data.meta.offset, 2);
      const { data: past } = await flow.call({ mode: 'tabs', offset: 10 });
      assert.deepEqual(past.tabs, []);
    });
  });

  describe('tab_summary', () => {
    it('is the mode an id alone asks for: groups, chains, key nodes and counts', async () => {
      const { data } = await flow.call({ id: TAB_MAIN });
      assert.equal(data.mode, 'tab_summary');
      assert.deepEqual(data.meta.reads, [`/flow/${TAB_MAIN}`]);
      assert.equal(data.meta.source, 'admin-api');
      const tab = data.tab as Entry;
      assert.equal(tab.id, TAB_MAIN);
      assert.equal(tab.label, 'Main tools');
      const counts = data.counts as Entry;
      assert.equal(counts.nodes, 16);
      assert.equal(counts.groups, 2);
      assert.equal(counts.configs, 1);
      assert.equal(counts.wires, 10);
      assert.equal(counts.chains, 2);
      assert.equal(counts.unwiredNodes, 5);
      assert.deepEqual(ids(data.groups), [GROUP_OUTER, GROUP_INNER]);
      const chains = list(data.chains);
      assert.deepEqual(chains.map((chain) => chain.nodeCount), [7, 4]);
      assert.equal(chains[0]!.startNodeId, 'n-server');
      assert.deepEqual(chains[1]!.entryNodeIds, ['n-inject', 'n-catch']);
      const keyNodes = ids(data.keyNodes);
      for (const id of ['n-server', 'n-tool', 'n-linkout', 'n-linkcall', 'n-inject', 'n-catch', 'n-instance']) assert.ok(keyNodes.includes(id), id);
      assert.ok(!keyNodes.includes('n-debug'));
    });

    it('does not follow link nodes to other tabs', async () => {
      const { data } = await flow.call({ mode: 'tab_summary', id: TAB_OTHER });
      const chains = list(data.chains);
      assert.equal(chains.length, 1);
      assert.deepEqual(chains[0]!.nodeCount, 3);
      assert.ok(!JSON.stringify(data.chains).includes('n-linkout'));
    });
  });

  describe('group', () => {
    it('lists members (nested groups too) and the direct wires touching them', async () => {
      const { data } = await flow.call({ mode: 'group', id: TAB_MAIN, groupId: GROUP_INNER });
      assert.equal((data.group as Entry).id, GROUP_INNER);
      assert.equal((data.group as Entry).group, GROUP_OUTER);
      assert.deepEqual(ids(data.members), ['n-switch', 'n-func']);
      assert.deepEqual(data.edges, [
        { source: 'n-switch', port: 0, target: 'n-func' },
        { source: 'n-switch', port: 1, target: 'n-linkout' },
        { source: 'n-server', port: 0, target: 'n-switch' },
        { source: 'n-func', port: 0, target: 'n-http' },
      ]);
      const { data: outer } = await flow.call({ mode: 'group', id: TAB_MAIN, groupId: GROUP_OUTER });
      assert.deepEqual(ids(outer.members), [GROUP_INNER, 'n-server', 'n-tool']);
    });

    it('names an unknown group', async () => {
      const { result } = await flow.call({ mode: 'group', id: TAB_MAIN, groupId: 'nope' });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /no group "nope"/);
    });
  });

  describe('chain', () => {
    it('returns the wired component holding the node, starting from it', async () => {
      const { data } = await flow.call({ mode: 'chain', id: TAB_MAIN, nodeId: 'n-mongo' });
      assert.deepEqual((data.chain as Entry).nodeCount, 4);
      assert.deepEqual(ids(data.nodes).sort(), ['n-catch', 'n-debug', 'n-inject', 'n-mongo']);
      assert.equal(ids(data.nodes)[0], 'n-mongo');
      assert.deepEqual(data.edges, [
        { source: 'n-mongo', port: 0, target: 'n-debug' },
        { source: 'n-inject', port: 0, target: 'n-mongo' },
        { source: 'n-catch', port: 0, target: 'n-debug' },
      ]);
    });

    it('exposes link targets without traversing them', async () => {
      const { data } = await flow.call({ mode: 'chain', id: TAB_MAIN, nodeId: 'n-switch' });
      const nodes = list(data.nodes);
      assert.equal(nodes.length, 7);
      assert.deepEqual(nodes.find((node) => node.id === 'n-linkout')!.links, ['o-linkin']);
      assert.ok(!ids(data.nodes).includes('o-linkin'));
    });

    it('points a group id to mode group, and a config id to mode config', async () => {
      const group = await flow.call({ mode: 'chain', id: TAB_MAIN, nodeId: GROUP_OUTER });
      assert.match(textOf(group.result), /is a group/);
      const config = await flow.call({ mode: 'chain', id: TAB_MAIN, nodeId: 'cfg-tab-limits' });
      assert.match(textOf(config.result), /is a config node/);
      const missing = await flow.call({ mode: 'chain', id: TAB_MAIN, nodeId: 'ghost' });
      assert.match(textOf(missing.result), /has no node "ghost"/);
    });
  });

  describe('node', () => {
    it('shows allowlisted identifiers and labels with direct wires only', async () => {
      const { data } = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-http' });
      assert.deepEqual(data.node, { id: 'n-http', type: 'http request', name: 'Weather API', outputs: 1, configSupported: false });
      assert.deepEqual(data.incoming, [{ source: 'n-func', port: 0, target: 'n-http' }]);
      assert.deepEqual(data.outgoing, [{ source: 'n-http', port: 0, target: 'n-change' }]);
      assert.equal(data.code, undefined);
      assert.equal(data.config, undefined);
      assert.equal(data.configRedactedProperties, undefined);
    });

    it('returns at most 10 000 function code characters with includeCode', async () => {
      const { data } = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-func', includeCode: true });
      const code = data.code as Entry;
      assert.equal(typeof code.func, 'string');
      const returned = (code.func as string).length + ((code.initialize as string | undefined)?.length ?? 0);
      assert.equal(returned, GET_FLOW_LIMITS.maxCodeChars);
      assert.equal(code.truncated, true);
      assert.ok((code.totalChars as number) > LONG_CODE_CHARS);
      assert.equal(data.meta.truncated, true);
    });

    it('adds no code for includeCode false or a node that is not a Function', async () => {
      const { data } = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-func', includeCode: false });
      assert.equal(data.code, undefined);
      const other = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-debug', includeCode: true });
      assert.equal(other.data.code, undefined);
    });

    it('refuses includeCode and includeConfig outside mode node', async () => {
      const code = await flow.call({ mode: 'chain', id: TAB_MAIN, nodeId: 'n-func', includeCode: true });
      assert.equal(code.result.isError, true);
      assert.match(textOf(code.result), /includeCode does not apply to mode "chain"/);
      const config = await flow.call({ id: TAB_MAIN, includeConfig: true });
      assert.match(textOf(config.result), /includeConfig does not apply to mode "tab_summary"/);
    });

    const SETTINGS: [string, string, Entry][] = [
      ['inject', 'n-inject', { props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }], payload: '', payloadType: 'date', topic: 'tick', repeat: '60', crontab: '', once: true, onceDelay: 0.1 }],
      ['switch', 'n-switch', { property: 'payload.toolName', propertyType: 'msg', rules: [{ t: 'eq', v: 'weather', vt: 'str' }, { t: 'else' }], checkall: 'true', repair: false, outputs: 2 }],
      ['catch', 'n-catch', { scope: ['n-func', 'n-http'], uncaught: false }],
      ['mongodb4', 'n-mongo', { mode: 'collection', collection: 'ticks', operation: 'insertOne', output: 'toArray', maxTimeMS: '5000', handleDocId: false }],
      ['link call', 'n-linkcall', { links: ['o-linkin'], linkType: 'static', timeout: '30' }],
      ['link out', 'n-linkout', { mode: 'link', links: ['o-linkin'] }],
      ['mcp-flow-server', 'n-server', { path: '/tools', access: 'oauth', groups: 'mcp-users, admins' }],
    ];
    for (const [type, nodeId, expected] of SETTINGS) {
      it(`includeConfig shows ${type} settings as configured (types kept, nothing filled in)`, async () => {
        const { data } = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId, includeConfig: true });
        assert.equal((data.node as Entry).configSupported, true);
        assert.deepEqual(data.config, expected);
        assert.deepEqual(data.configOmittedProperties, []);
      });
    }

    it('includeConfig shows link in settings', async () => {
      const { data } = await flow.call({ mode: 'node', id: TAB_OTHER, nodeId: 'o-linkin', includeConfig: true });
      assert.deepEqual(data.config, { links: ['n-linkout', 'n-linkcall'] });
      const back = await flow.call({ mode: 'node', id: TAB_OTHER, nodeId: 'o-linkret', includeConfig: true });
      assert.deepEqual(back.data.config, { mode: 'return', links: [] });
    });

    it('includeConfig shows mcp-tool-registry settings, schema text kept as text and secret keys redacted', async () => {
      const { data } = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-tool', includeConfig: true });
      const config = data.config as Entry;
      assert.equal(config.toolName, 'weather');
      assert.equal(config.description, 'Current weather for a city');
      assert.equal(config.endpoint, '/tools');
      assert.equal(config.readOnlyHint, true);
      assert.equal(config.openWorldHint, false);
      assert.equal('destructiveHint' in config, false);
      assert.equal(typeof config.inputSchema, 'string');
      const schema = JSON.parse(config.inputSchema as string) as { properties: Entry; required: string[] };
      assert.equal(schema.properties.password, '[REDACTED]');
      assert.deepEqual(schema.properties.city, { type: 'string', description: 'City name' });
      assert.deepEqual(schema.required, ['city']);
      assert.deepEqual(data.configRedactedProperties, ['config.inputSchema.properties.password', 'config.inputSchema.properties.nested.properties.apiKey']);
      // The output schema text is not JSON: it is left out rather than shown unchecked.
      assert.equal('outputSchema' in config, false);
      assert.deepEqual(data.configOmittedProperties, ['config.outputSchema']);
    });

    it('marks unsupported types and returns no settings for them', async () => {
      const { data } = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-http', includeConfig: true });
      assert.equal((data.node as Entry).configSupported, false);
      assert.equal(data.config, undefined);
      assert.deepEqual(data.configRedactedProperties, []);
    });

    it('shows a subflow instance with its subflow id and env names, values hidden', async () => {
      const { data } = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-instance' });
      const node = data.node as Entry;
      assert.equal(node.subflow, SUBFLOW);
      assert.deepEqual(node.env, [{ name: 'SF_TOKEN', type: 'str', value: '[REDACTED]' }]);
      assert.deepEqual(data.redactedProperties, ['node.env[0].value']);
    });
  });

  describe('subflows and subflow', () => {
    it('indexes subflow definitions from /flow/global', async () => {
      const { data } = await flow.call({ mode: 'subflows' });
      assert.deepEqual(data.meta.reads, ['/flow/global']);
      assert.deepEqual(data.subflows, [{ id: SUBFLOW, name: 'Enrich', category: 'function', inputs: 1, outputs: 1, nodeCount: 3, configCount: 1 }]);
    });

    it('describes one definition with its contained nodes and port wiring', async () => {
      const { data } = await flow.call({ mode: 'subflow', subflowId: SUBFLOW });
      const subflow = data.subflow as Entry;
      assert.deepEqual(subflow.inputWires, [{ port: 0, targets: ['sf-change'] }]);
      assert.deepEqual(subflow.outputWires, [{ port: 0, sources: [{ id: 'sf-func', port: 0 }] }]);
      assert.deepEqual(subflow.env, [{ name: 'SF_TOKEN', type: 'str', value: '[REDACTED]' }]);
      assert.deepEqual(ids(data.nodes), ['sf-change', 'sf-func', 'sf-user']);
      assert.deepEqual(data.edges, [{ source: 'sf-change', port: 0, target: 'sf-func' }]);
      assert.equal(data.usages, undefined);
    });

    it('lists its usages on one tab when given id', async () => {
      const { data } = await flow.call({ mode: 'subflow', subflowId: SUBFLOW, id: TAB_MAIN });
      assert.deepEqual(data.meta.reads, ['/flow/global', `/flow/${TAB_MAIN}`]);
      const usages = list(data.usages);
      assert.deepEqual(ids(usages), ['n-instance']);
      assert.deepEqual(usages[0]!.env, [{ name: 'SF_TOKEN', type: 'str', value: '[REDACTED]' }]);
      const none = await flow.call({ mode: 'subflow', subflowId: SUBFLOW, id: TAB_OFF });
      assert.deepEqual(none.data.usages, []);
    });

    it('names an unknown subflow', async () => {
      const { result } = await flow.call({ mode: 'subflow', subflowId: 'sf-ghost' });
      assert.match(textOf(result), /No deployed subflow has the id "sf-ghost"/);
    });
  });

  describe('configs and config', () => {
    it('pages the global config-node index by 40', async () => {
      const first = await flow.call({ mode: 'configs' });
      const page = list(first.data.configs);
      assert.equal(page.length, 40);
      assert.equal(first.data.meta.total, 48);
      assert.equal(first.data.meta.nextOffset, 40);
      assert.deepEqual(page[0], { id: 'cfg-runtime', type: 'mcp-runtime', name: 'MCP runtime', users: 1 });
      const second = await flow.call({ mode: 'configs', offset: first.data.meta.nextOffset as number });
      assert.equal(list(second.data.configs).length, 8);
      assert.equal(second.data.meta.nextOffset, undefined);
      const all = [...ids(first.data.configs), ...ids(second.data.configs)];
      assert.equal(new Set(all).size, 48);
    });

    it('lists the config nodes of one tab or one subflow', async () => {
      const tab = await flow.call({ mode: 'configs', id: TAB_MAIN });
      assert.deepEqual(tab.data.scope, { scope: 'tab', id: TAB_MAIN });
      assert.deepEqual(tab.data.configs, [{ id: 'cfg-tab-limits', type: 'limits-config', name: 'Tab limits' }]);
      const subflow = await flow.call({ mode: 'configs', subflowId: SUBFLOW });
      assert.deepEqual(subflow.data.scope, { scope: 'subflow', id: SUBFLOW });
      assert.deepEqual(ids(subflow.data.configs), ['sf-cfg']);
    });

    it('shows the ordinary properties of one config node, types kept', async () => {
      const { data } = await flow.call({ mode: 'config', configId: 'cfg-tab-limits', id: TAB_MAIN });
      assert.deepEqual(data.config, { id: 'cfg-tab-limits', type: 'limits-config', name: 'Tab limits' });
      assert.deepEqual(data.properties, { name: 'Tab limits', max: 10, window: '1m' });
      const global = await flow.call({ mode: 'config', configId: 'cfg-mongo' });
      const properties = global.data.properties as Entry;
      assert.equal(properties.dbName, 'app');
      assert.equal(properties.uri, 'mongodb://[REDACTED]@mongo.example.com:27017/app');
      assert.equal('_users' in properties, false);
      assert.equal((global.data.config as Entry).users, 1);
    });

    it('says where to look when a config node is not in the chosen scope', async () => {
      const { result } = await flow.call({ mode: 'config', configId: 'cfg-tab-limits' });
      assert.match(textOf(result), /No config node "cfg-tab-limits" in the global scope\. If it belongs to a tab or subflow, pass id or subflowId\./);
    });

    it('refuses id and subflowId together', async () => {
      const { result } = await flow.call({ mode: 'configs', id: TAB_MAIN, subflowId: SUBFLOW });
      assert.match(textOf(result), /takes id or subflowId, not both/);
    });
  });

  describe('node_configs', () => {
    it('lists config references with property name and scope, nearest scope first', async () => {
      const { data } = await flow.call({ mode: 'node_configs', nodeId: 'n-limits-user', id: TAB_MAIN });
      assert.deepEqual(data.meta.reads, [`/flow/${TAB_MAIN}`, '/flow/global']);
      const references = list(data.references).map(({ property, configId, scope }) => ({ property, configId, scope }));
      assert.deepEqual(references, [
        { property: 'limits', configId: 'cfg-tab-limits', scope: 'tab' },
        { property: 'api', configId: 'cfg-api', scope: 'global' },
      ]);
      const mongo = await flow.call({ mode: 'node_configs', nodeId: 'n-mongo', id: TAB_MAIN });
      assert.deepEqual(mongo.data.references, [{ property: 'clientNode', configId: 'cfg-mongo', type: 'mongodb4-client', scope: 'global', name: 'Mongo' }]);
      const server = await flow.call({ mode: 'node_configs', nodeId: 'n-server', id: TAB_MAIN });
      assert.deepEqual(list(server.data.references).map((reference) => reference.property), ['runtime']);
    });

    it('resolves references inside a subflow definition', async () => {
      const { data } = await flow.call({ mode: 'node_configs', nodeId: 'sf-user', subflowId: SUBFLOW });
      assert.deepEqual(data.meta.reads, ['/flow/global']);
      const references = list(data.references).map(({ property, configId, scope }) => ({ property, configId, scope }));
      assert.deepEqual(references, [
        { property: 'limits', configId: 'sf-cfg', scope: 'subflow' },
        { property: 'api', configId: 'cfg-api', scope: 'global' },
      ]);
    });

    it('needs id or subflowId', async () => {
      const { result } = await flow.call({ mode: 'node_configs', nodeId: 'n-mongo' });
      assert.match(textOf(result), /needs id or subflowId/);
    });
  });

  describe('argument combinations and unknown ids', () => {
    const cases: [Entry, RegExp][] = [
      [{ mode: 'tab_summary' }, /Mode "tab_summary" needs id/],
      [{ mode: 'group', id: TAB_MAIN }, /needs groupId/],
      [{ mode: 'chain', nodeId: 'n-func' }, /needs id/],
      [{ mode: 'node', id: TAB_MAIN }, /needs nodeId/],
      [{ mode: 'subflow' }, /needs subflowId/],
      [{ mode: 'config' }, /needs configId/],
      [{ mode: 'tabs', id: TAB_MAIN }, /id does not apply to mode "tabs"/],
      [{ nodeId: 'n-func' }, /nodeId does not apply to mode "tabs"/],
      [{ id: TAB_MAIN, nodeId: 'n-func' }, /nodeId does not apply to mode "tab_summary"/],
      [{ mode: 'subflows', subflowId: SUBFLOW }, /subflowId does not apply/],
      [{ mode: 'node', id: TAB_MAIN, nodeId: 'n-func', offset: 1 }, /offset does not apply to mode "node"/],
    ];
    for (const [args, message] of cases) {
      it(`refuses ${JSON.stringify(args)}`, async () => {
        const before = flow.api.requests.length;
        const { result, answer } = await flow.call(args);
        assert.equal(result.isError, true);
        assert.match(textOf(result), message);
        assert.equal(result.structuredContent, undefined);
        assert.equal(flow.api.requests.length, before, 'no admin read for a refused call');
        assert.equal(typeof answer.scannedNodes, 'number');
      });
    }

    it('answers an unknown tab from the index, without an admin read', async () => {
      const before = flow.api.requests.length;
      const { result } = await flow.call({ mode: 'tab_summary', id: 'tab-ghost' });
      assert.match(textOf(result), /No deployed tab has the id "tab-ghost"/);
      assert.equal(flow.api.requests.length, before);
    });

    it('never reads /flow/global in place of a tab', async () => {
      const before = flow.api.requests.length;
      const { result } = await flow.call({ id: 'global' });
      assert.equal(result.isError, true);
      assert.equal(flow.api.requests.length, before);
    });
  });
});

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}
