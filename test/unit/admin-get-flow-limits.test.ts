import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateLargeFlow, getFlowHarnessForSuite, startGetFlowHarness, type ConfigEntry, type GetFlowHarness } from '../support/flow-fixtures.js';
import { GET_FLOW_LIMITS } from '../../lib/admin/limits.js';

type Entry = Record<string, unknown>;

const KIB = 1024;

function nested(levels: number): Entry {
  let value: Entry = { bottom: true };
  for (let level = 0; level < levels; level += 1) value = { [`level${levels - level}`]: value };
  return value;
}

/** One tab whose entries each push one limit. */
function limitsFlow(): ConfigEntry[] {
  const tab = 'tab-limits';
  const hubTargets = Array.from({ length: 100 }, (_, index) => `leaf-${index}`);
  return [
    { id: tab, type: 'tab', label: 'Limits', disabled: false, env: Array.from({ length: 50 }, (_, index) => ({ name: `E${index}`, type: 'str', value: `v${index}` })) },
    { id: 'big-group', type: 'group', z: tab, name: 'Crowded', nodes: hubTargets.slice(0, 45), x: 0, y: 0, w: 10, h: 10 },
    { id: 'hub', type: 'function', z: tab, name: 'Hub', func: 'return msg;', outputs: 1, x: 10, y: 10, wires: [hubTargets] },
    ...hubTargets.map((id, index) => ({ id, type: 'debug', z: tab, name: `leaf ${index}`, ...(index < 45 ? { g: 'big-group' } : {}), x: 20, y: 20 + index, wires: [] })),
    { id: 'many-links', type: 'link out', z: tab, name: 'Everywhere', mode: 'link', links: Array.from({ length: 50 }, (_, index) => `remote-${index}`), x: 30, y: 30 },
    { id: 'heavy-inject', type: 'inject', z: tab, name: 'Heavy', payload: 'p'.repeat(30 * KIB), topic: 't'.repeat(30 * KIB), crontab: 'c'.repeat(30 * KIB), repeat: '', x: 40, y: 40, wires: [[]] },
    { id: 'huge-switch', type: 'switch', z: tab, name: 'Huge', property: 'payload', rules: [{ t: 'eq', v: 'x'.repeat(40 * KIB), vt: 'str' }], outputs: 1, x: 50, y: 50, wires: [[]] },
    { id: 'cfg-big-value', type: 'blob-config', name: 'Blob', blob: 'b'.repeat(40 * KIB), small: 'ok' },
    { id: 'cfg-deep', type: 'deep-config', name: 'Deep', tree: nested(20), flat: 1 },
    { id: 'cfg-wide', type: 'wide-config', name: 'Wide', values: Array.from({ length: 3_000 }, (_, index) => index) },
    { id: 'cfg-many', type: 'many-config', ...Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`p${String(index).padStart(3, '0')}`, index])) },
    { id: 'cfg-bulky', type: 'bulky-config', ...Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`chunk${index}`, String(index).repeat(20 * KIB)])) },
  ];
}

describe('get_flow limits on values and lists', () => {
  const flow = getFlowHarnessForSuite(limitsFlow());

  it('omits and lists a property over 32 KiB', async () => {
    const { data } = await flow.call({ mode: 'config', configId: 'cfg-big-value' });
    assert.deepEqual(data.properties, { name: 'Blob', small: 'ok' });
    assert.deepEqual(data.omittedProperties, ['properties.blob']);
    assert.equal(data.meta.truncated, true);
  });

  it('keeps 16 levels of nesting and lists what lies deeper', async () => {
    const { data } = await flow.call({ mode: 'config', configId: 'cfg-deep' });
    let value = (data.properties as Entry).tree as Entry;
    let depth = 1;
    while (value && typeof value === 'object' && Object.keys(value).length > 0) {
      value = Object.values(value)[0] as Entry;
      depth += 1;
    }
    assert.equal(depth, GET_FLOW_LIMITS.maxDepth);
    assert.equal((data.properties as Entry).flat, 1);
    const omitted = data.omittedProperties as string[];
    assert.equal(omitted.length, 1);
    assert.match(omitted[0]!, /^properties\.tree\.level1\.level2\./);
    assert.equal(data.meta.truncated, true);
  });

  it('stops after 2 000 visited values per request', async () => {
    const { data } = await flow.call({ mode: 'config', configId: 'cfg-wide' });
    const values = (data.properties as Entry).values as number[];
    assert.ok(values.length < GET_FLOW_LIMITS.maxVisitedValues, `${values.length} values returned`);
    assert.ok(values.length > GET_FLOW_LIMITS.maxVisitedValues - 10);
    assert.deepEqual(values.slice(0, 3), [0, 1, 2]);
    assert.equal(data.meta.truncated, true);
    assert.equal((data.omittedProperties as string[]).length, 1);
    assert.match((data.omittedProperties as string[])[0]!, /^properties\.values\[\d+\]$/);
  });

  it('pages config properties by 40 fields', async () => {
    const first = await flow.call({ mode: 'config', configId: 'cfg-many' });
    assert.equal(Object.keys(first.data.properties as Entry).length, 40);
    assert.equal(first.data.meta.total, 100);
    assert.equal(first.data.meta.nextOffset, 40);
    const seen = new Set(Object.keys(first.data.properties as Entry));
    let offset = first.data.meta.nextOffset as number | undefined;
    while (offset !== undefined) {
      const page = await flow.call({ mode: 'config', configId: 'cfg-many', offset });
      for (const key of Object.keys(page.data.properties as Entry)) seen.add(key);
      offset = page.data.meta.nextOffset as number | undefined;
    }
    assert.equal(seen.size, 100);
  });

  it('pages config properties by 64 KiB of values', async () => {
    const first = await flow.call({ mode: 'config', configId: 'cfg-bulky' });
    assert.deepEqual(Object.keys(first.data.properties as Entry), ['chunk0', 'chunk1', 'chunk2']);
    assert.equal(first.data.meta.nextOffset, 3);
    assert.deepEqual(first.data.omittedProperties, []);
    const second = await flow.call({ mode: 'config', configId: 'cfg-bulky', offset: 3 });
    assert.deepEqual(Object.keys(second.data.properties as Entry), ['chunk3', 'chunk4']);
    assert.equal(second.data.meta.nextOffset, undefined);
  });

  it('omits node settings beyond the 64 KiB config budget and lists them', async () => {
    const { data } = await flow.call({ mode: 'node', id: 'tab-limits', nodeId: 'heavy-inject', includeConfig: true });
    const config = data.config as Entry;
    assert.equal((config.payload as string).length, 30 * KIB);
    assert.equal((config.topic as string).length, 30 * KIB);
    assert.equal('crontab' in config, false);
    assert.equal(config.repeat, '');
    assert.deepEqual(data.configOmittedProperties, ['config.crontab']);
    assert.equal(data.meta.truncated, true);
  });

  it('omits a value over 32 KiB inside a node setting and lists it', async () => {
    const { data } = await flow.call({ mode: 'node', id: 'tab-limits', nodeId: 'huge-switch', includeConfig: true });
    assert.deepEqual(data.config, { property: 'payload', rules: [{ t: 'eq', vt: 'str' }], outputs: 1 });
    assert.deepEqual(data.configOmittedProperties, ['config.rules[0].v']);
    assert.equal(data.meta.truncated, true);
  });

  it('caps edges at 80 and says how many there were', async () => {
    const node = await flow.call({ mode: 'node', id: 'tab-limits', nodeId: 'hub' });
    assert.equal((node.data.outgoing as unknown[]).length, GET_FLOW_LIMITS.maxEdges);
    assert.equal(node.data.meta.truncated, true);
    const chain = await flow.call({ mode: 'chain', id: 'tab-limits', nodeId: 'hub' });
    assert.equal((chain.data.edges as unknown[]).length, GET_FLOW_LIMITS.maxEdges);
    assert.equal(chain.data.edgeCount, 100);
    assert.equal((chain.data.nodes as unknown[]).length, 40);
    assert.equal(chain.data.meta.nextOffset, 40);
    assert.equal(chain.data.meta.total, 101);
  });

  it('caps lists at 40: group members, link ids, env entries', async () => {
    const group = await flow.call({ mode: 'group', id: 'tab-limits', groupId: 'big-group' });
    assert.equal((group.data.members as unknown[]).length, 40);
    assert.equal(group.data.meta.total, 45);
    assert.equal(group.data.meta.nextOffset, 40);
    const rest = await flow.call({ mode: 'group', id: 'tab-limits', groupId: 'big-group', offset: 40 });
    assert.equal((rest.data.members as unknown[]).length, 5);

    const links = await flow.call({ mode: 'node', id: 'tab-limits', nodeId: 'many-links' });
    const node = links.data.node as Entry;
    assert.equal((node.links as string[]).length, 40);
    assert.equal(node.linksTotal, 50);
    assert.equal(links.data.meta.truncated, true);

    const summary = await flow.call({ id: 'tab-limits' });
    const env = (summary.data.tab as Entry).env as Entry[];
    assert.equal(env.length, 40);
    assert.ok(env.every((entry) => entry.value === '[REDACTED]'));
    assert.deepEqual(summary.data.omittedProperties, ['tab.env[40]']);
    assert.equal(summary.data.meta.truncated, true);
  });
});

describe('get_flow on a 20 000-node tab', () => {
  let flow: GetFlowHarness;
  before(async () => {
    flow = await startGetFlowHarness(generateLargeFlow());
    await flow.call(); // warm the tab index so scan counts below are the graph's alone
  });
  after(() => flow.close());

  it('indexes the tab in memory', async () => {
    const { data } = await flow.call();
    assert.deepEqual(data.tabs, [{ id: 'tab-large', label: 'Large (20000)', disabled: false, nodeCount: 20_000, groupCount: 0, configCount: 0 }]);
    assert.equal(data.meta.cached, true);
  });

  it('summarises it whole: 20 000 nodes and their wires fit the limits', async () => {
    const { data } = await flow.call({ id: 'tab-large' });
    const counts = data.counts as Entry;
    assert.equal(counts.nodes, 20_000);
    assert.equal(counts.wires, 19_999);
    assert.equal(counts.chains, 1);
    assert.equal((data.chains as Entry[])[0]!.nodeCount, 20_000);
    assert.equal((data.chains as Entry[])[0]!.complete, true);
    assert.equal(data.meta.scannedNodes, 20_000);
    assert.ok((data.meta.wireVisits as number) <= GET_FLOW_LIMITS.maxWireVisits);
    assert.equal(data.meta.truncated, false);
    assert.deepEqual(data.keyNodes, [{ id: 'big-0', type: 'inject', name: 'step 0' }]);
  });

  it('pages a 20 000-node chain 40 nodes at a time', async () => {
    const first = await flow.call({ mode: 'chain', id: 'tab-large', nodeId: 'big-10000' });
    assert.equal((first.data.chain as Entry).nodeCount, 20_000);
    assert.equal((first.data.nodes as Entry[]).length, 40);
    assert.equal((first.data.nodes as Entry[])[0]!.id, 'big-10000');
    assert.equal(first.data.meta.total, 20_000);
    assert.equal(first.data.meta.nextOffset, 40);
    assert.ok((first.data.edges as unknown[]).length <= GET_FLOW_LIMITS.maxEdges);
    const last = await flow.call({ mode: 'chain', id: 'tab-large', nodeId: 'big-10000', offset: 19_960 });
    assert.equal((last.data.nodes as Entry[]).length, 40);
    assert.equal(last.data.meta.nextOffset, undefined);
  });

  it('reports a node with its wires', async () => {
    const { data, answer } = await flow.call({ mode: 'node', id: 'tab-large', nodeId: 'big-19999' });
    assert.deepEqual(data.incoming, [{ source: 'big-19998', port: 0, target: 'big-19999' }]);
    assert.deepEqual(data.outgoing, []);
    assert.equal(answer.scannedNodes, 20_000);
  });
});

describe('get_flow graph limits', () => {
  it('stops above 20 000 nodes and reports truncation', async () => {
    const flow = await startGetFlowHarness(generateLargeFlow({ nodes: 20_500 }));
    try {
      await flow.call();
      const { data } = await flow.call({ id: 'tab-large' });
      assert.equal((data.counts as Entry).nodes, GET_FLOW_LIMITS.maxGraphNodes);
      assert.equal(data.meta.scannedNodes, GET_FLOW_LIMITS.maxGraphNodes);
      assert.equal(data.meta.truncated, true);
      const beyond = await flow.call({ mode: 'node', id: 'tab-large', nodeId: 'big-20400' });
      assert.equal(beyond.result.isError, true);
      assert.match((beyond.result.content[0] as { text: string }).text, /past the graph limit/);
      const chain = await flow.call({ mode: 'chain', id: 'tab-large', nodeId: 'big-0' });
      assert.equal((chain.data.chain as Entry).complete, false);
      assert.equal(chain.data.meta.truncated, true);
    } finally {
      await flow.close();
    }
  });

  it('marks every chain wired to a node past the cap incomplete, says how many wires and nodes were left out, and keeps the others complete', async () => {
    const [tab, ...big] = generateLargeFlow({ nodes: 20_500 });
    const node = (id: string, wires: string[]): ConfigEntry => ({ id, type: 'change', z: 'tab-large', name: id, x: 10, y: 10, wires: [wires] });
    // Listed first, so they are inside the cap; `late-feeder` is listed last, past it, and feeds `fed-a`.
    const config = [tab!, node('kept-a', ['kept-b']), node('kept-b', []), node('fed-a', ['fed-b']), node('fed-b', []), ...big, node('late-feeder', ['fed-a'])];
    const flow = await startGetFlowHarness(config);
    try {
      const { data } = await flow.call({ id: 'tab-large' });
      const chains = new Map((data.chains as Entry[]).map((chain) => [chain.startNodeId, chain]));
      // The big chain's last kept node wires on to the first node left out.
      assert.equal(chains.get('big-0')!.complete, false);
      assert.equal(chains.get('big-0')!.omittedWires, 1);
      // A node left out wires into this one.
      assert.equal(chains.get('fed-a')!.complete, false);
      assert.equal(chains.get('fed-a')!.omittedWires, 1);
      assert.equal(chains.get('kept-a')!.complete, true);
      assert.equal(chains.get('kept-a')!.omittedWires, 0);
      const counts = data.counts as Entry;
      assert.equal(counts.nodes, GET_FLOW_LIMITS.maxGraphNodes);
      assert.equal(counts.omittedNodes, 4 + 20_500 + 1 - GET_FLOW_LIMITS.maxGraphNodes);
      assert.equal(data.meta.truncated, true);
      const fed = await flow.call({ mode: 'chain', id: 'tab-large', nodeId: 'fed-b' });
      assert.deepEqual(fed.data.chain, { startNodeId: 'fed-b', nodeCount: 2, complete: false, omittedWires: 1 });
      const kept = await flow.call({ mode: 'chain', id: 'tab-large', nodeId: 'kept-b' });
      assert.deepEqual(kept.data.chain, { startNodeId: 'kept-b', nodeCount: 2, complete: true, omittedWires: 0 });
    } finally {
      await flow.close();
    }
  });

  it('stops after 100 000 wire visits while walking and reports truncation', async () => {
    const flow = await startGetFlowHarness(generateLargeFlow({ nodes: 20_000, fanOut: 3 }));
    try {
      const { data } = await flow.call({ id: 'tab-large' });
      assert.equal(data.meta.wireVisits, GET_FLOW_LIMITS.maxWireVisits);
      assert.equal(data.meta.truncated, true);
      assert.equal((data.chains as Entry[])[0]!.complete, false);
      const chain = await flow.call({ mode: 'chain', id: 'tab-large', nodeId: 'big-0' });
      assert.equal((chain.data.chain as Entry).complete, false);
      assert.ok(((chain.data.chain as Entry).nodeCount as number) < 20_000);
    } finally {
      await flow.close();
    }
  });

  it('stops after 100 000 wire visits while building and reports truncation', async () => {
    const flow = await startGetFlowHarness(generateLargeFlow({ nodes: 20_000, fanOut: 6 }));
    try {
      const { data } = await flow.call({ mode: 'node', id: 'tab-large', nodeId: 'big-19999' });
      assert.equal(data.meta.wireVisits, GET_FLOW_LIMITS.maxWireVisits);
      assert.equal(data.meta.truncated, true);
      // The wires into the last node come from the end of the list, past the budget.
      assert.deepEqual(data.incoming, []);
    } finally {
      await flow.close();
    }
  });
});

describe('get_flow tab index limit', () => {
  it('stops walking above 100 000 configuration entries and reports truncation', async () => {
    const config: ConfigEntry[] = [{ id: 'tab-first', type: 'tab', label: 'First' }];
    for (let index = 0; index < GET_FLOW_LIMITS.maxIndexedNodes; index += 1) {
      config.push({ id: `n${index}`, type: 'debug', z: 'tab-first', x: 0, y: 0 });
    }
    config.push({ id: 'tab-late', type: 'tab', label: 'Late' });
    const flow = await startGetFlowHarness(config);
    try {
      const { data, answer } = await flow.call();
      assert.deepEqual((data.tabs as Entry[]).map((tab) => tab.id), ['tab-first']);
      assert.equal(data.indexedEntries, GET_FLOW_LIMITS.maxIndexedNodes);
      assert.equal(data.meta.scannedNodes, GET_FLOW_LIMITS.maxIndexedNodes);
      assert.equal(answer.scannedNodes, GET_FLOW_LIMITS.maxIndexedNodes);
      assert.equal(data.meta.truncated, true);
      // An incomplete index cannot rule a tab out, so the admin API is asked.
      const late = await flow.call({ mode: 'configs', id: 'tab-late' });
      assert.equal(late.result.isError, undefined);
      assert.deepEqual(late.data.configs, []);
      const ghost = await flow.call({ mode: 'configs', id: 'tab-ghost' });
      assert.match((ghost.result.content[0] as { text: string }).text, /No deployed tab has the id "tab-ghost"/);
      assert.ok(flow.api.requests.some((request) => request.url === '/flow/tab-ghost'));
    } finally {
      await flow.close();
    }
  });
});
