import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, type ReadResourceResult } from '@modelcontextprotocol/client';
import { startPlantA, type PlantA } from '../support/edge-redis.js';
import { answer, flowServer, prompt, resource, runtime, storage, tab, TAB, tool, topicSwitch } from '../support/flows.js';
import { connect, protocolError, withClient, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';

/**
 * Resources, resource templates, prompts and completions of an edge Node-RED, served by a hub: one
 * hub and one edge (site plant-a) on a real Redis with the ACL users of docs/edge-relay.md, the
 * official client on the hub in both eras. The hub lists the edge's items under its naming
 * (edge://plant-a/<uri>, plant-a.<prompt>), answers completion lists itself, and sends reads,
 * prompts and flow completions to the edge, whose flow answers them as it answers its own clients.
 */

/** The edge's read flow: says what it got, answers by URI; the slow one never answers. */
const READER = `const p = msg.payload;
node.warn('edge-read ' + p.uri + ' from=' + msg.mcp.relayedFrom + ' round=' + (p.inputRound || 0) + ' vars=' + JSON.stringify(p.variables));
const respond = (payload) => ({ topic: 'mcp-resource-response', payload: { executionId: p.executionId, ...payload } });
if (p.uri === 'plant://line-1/status') return respond({ contents: 'line 1 running' });
if (p.uri.startsWith('sensor://')) return respond({ contents: [{ text: 'readings of ' + p.variables.line }, { uri: 'sensor://' + p.variables.line + '/raw', text: 'raw' }] });
if (p.uri === 'plant://line-1/broken') return respond({ error: 'sensor offline' });
if (p.uri === 'plant://line-1/locked') {
  if (p.inputError) return respond({ error: p.inputError.message });
  const reply = p.inputResponses && p.inputResponses.confirm;
  if (!reply) return { topic: 'mcp-resource-input', payload: { executionId: p.executionId, state: { line: 'line-1' }, requests: {
    confirm: { elicitation: { message: 'Show the lock-out log?', requestedSchema: { type: 'object', properties: { show: { type: 'boolean' } }, required: ['show'] } } } } } };
  return respond({ contents: 'lock-out log of ' + p.state.line + ' shown=' + reply.content.show });
}
return null;`;

const PROMPTER = `const p = msg.payload;
node.warn('edge-prompt ' + p.name + ' line=' + p.arguments.line);
return { topic: 'mcp-prompt-response', payload: { executionId: p.executionId, messages: [
  { role: 'user', content: 'Write the maintenance report for ' + p.arguments.line },
  { role: 'user', content: { type: 'resource_link', uri: 'plant://line-1/status', name: 'status' } },
] } };`;

const COMPLETER = `node.warn('edge-complete ' + msg.payload.argument.name + '=' + msg.payload.argument.value);
return { topic: 'mcp-completion-response', payload: { executionId: msg.payload.executionId, values: ['line-1', 'line-2', 'line-7'] } };`;

const CANCELLED = `node.warn('edge-read-cancel ' + msg.payload.reason); return null;`;

/** An inject node that sends `payload` with `topic` into the endpoint `fs`, fired through the admin API. */
function inject(id: string, topic: string, payload: object): FlowNode {
  return { id, type: 'inject', z: TAB, name: id, props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }], repeat: '', crontab: '', once: false, onceDelay: 0.1, topic, payload: JSON.stringify(payload), payloadType: 'json', x: 100, y: 200, wires: [['fs']] };
}

function edgeFlows(port: number): FlowNode[] {
  const on = { endpoint: '/edge' };
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    { ...flowServer('fs', { runtime: 'rt', path: '/edge', wires: ['by-topic'] }), storage: 'st', edgeSite: 'plant-a' },
    topicSwitch('by-topic', { 'mcp-resource-read': 'reader', 'mcp-prompt-get': 'prompter', 'mcp-completion': 'completer', 'mcp-resource-cancel': 'cancelled' }),
    answer('reader', READER, 'fs'),
    answer('prompter', PROMPTER, 'fs'),
    answer('completer', COMPLETER, 'fs'),
    answer('cancelled', CANCELLED, ''),
    resource('r-manual', { ...on, name: 'manual', uri: 'plant://line-1/manual', source: 'static', text: 'Line 1 manual' }),
    resource('r-status', { ...on, name: 'status', uri: 'plant://line-1/status' }),
    resource('r-broken', { ...on, name: 'broken', uri: 'plant://line-1/broken' }),
    resource('r-locked', { ...on, name: 'locked', uri: 'plant://line-1/locked' }),
    resource('r-slow', { ...on, name: 'slow', uri: 'plant://line-1/slow', timeout: 2 }),
    { ...resource('r-readings', { ...on, name: 'readings', uri: 'sensor://{line}/readings' }), completions: 'line: line-1, line-2, line-7' },
    prompt('p-greeting', { ...on, name: 'greeting', arguments: [{ name: 'who', required: true }], messages: [{ role: 'user', text: 'Hello {{who}} from plant A' }] }),
    prompt('p-report', { ...on, name: 'report', source: 'flow', arguments: [{ name: 'line', required: true, completion: 'flow' }] }),
    tool('t-ping', { name: 'ping', endpoint: '/edge' }),
    inject('update-status', 'mcp-resource-updated', { uri: 'plant://line-1/status' }),
  ];
}

const texts = (result: ReadResourceResult) => result.contents.map((item) => ('text' in item ? item.text : item.blob));

describe(`resources, prompts and completions of an edge through a hub, on ${nodeRedPackage}`, () => {
  let plant: PlantA;
  let edge: NodeRedProcess;
  let hubUrl: string;

  before(async () => {
    plant = await startPlantA(edgeFlows, 'plant-a.ping');
    ({ edge, hubUrl } = plant);
  });

  after(() => plant?.stop());

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`${era}: lists the edge's resources, templates and prompts under the hub's naming`, async () => {
      await withClient(connect(hubUrl, era), async (client) => {
        assert.ok(client.getServerCapabilities()?.resources, 'the hub declares resources once an edge offers some');
        assert.ok(client.getServerCapabilities()?.completions);
        assert.deepEqual((await client.listResources()).resources.map((listed) => listed.uri), [
          'edge://plant-a/plant://line-1/broken',
          'edge://plant-a/plant://line-1/locked',
          'edge://plant-a/plant://line-1/manual',
          'edge://plant-a/plant://line-1/slow',
          'edge://plant-a/plant://line-1/status',
        ]);
        assert.deepEqual((await client.listResourceTemplates()).resourceTemplates.map((listed) => listed.uriTemplate), ['edge://plant-a/sensor://{line}/readings']);
        const prompts = (await client.listPrompts()).prompts;
        assert.deepEqual(prompts.map((listed) => listed.name), ['plant-a.greeting', 'plant-a.report']);
        assert.deepEqual(prompts[1]!.arguments, [{ name: 'line', required: true }]);
      });
    });

    it(`${era}: reads fixed and template URIs on the edge (editor text and flow), with the edge's URIs in the answer made the hub's`, async () => {
      const since = edge.output().length;
      await withClient(connect(hubUrl, era), async (client) => {
        assert.deepEqual(texts(await client.readResource({ uri: 'edge://plant-a/plant://line-1/manual' })), ['Line 1 manual']);
        const status = await client.readResource({ uri: 'edge://plant-a/plant://line-1/status' });
        assert.deepEqual(status.contents, [{ uri: 'edge://plant-a/plant://line-1/status', mimeType: 'text/plain', text: 'line 1 running' }]);
        const readings = await client.readResource({ uri: 'edge://plant-a/sensor://line-7/readings' });
        assert.deepEqual(readings.contents.map((item) => item.uri), ['edge://plant-a/sensor://line-7/readings', 'edge://plant-a/sensor://line-7/raw']);
        assert.deepEqual(texts(readings), ['readings of line-7', 'raw']);
      });
      await edge.waitForOutput('edge-read plant://line-1/status from=/hub round=0', since);
      await edge.waitForOutput('edge-read sensor://line-7/readings from=/hub round=0 vars={"line":"line-7"}', since);
    });

    it(`${era}: gets template and flow prompts, and completes from the hub's list and from the edge flow`, async () => {
      const since = edge.output().length;
      await withClient(connect(hubUrl, era), async (client) => {
        const greeting = await client.getPrompt({ name: 'plant-a.greeting', arguments: { who: 'Ada' } });
        assert.deepEqual(greeting.messages, [{ role: 'user', content: { type: 'text', text: 'Hello Ada from plant A' } }]);
        const report = await client.getPrompt({ name: 'plant-a.report', arguments: { line: 'line-2' } });
        assert.deepEqual(report.messages[0]!.content, { type: 'text', text: 'Write the maintenance report for line-2' });
        assert.deepEqual(report.messages[1]!.content, { type: 'resource_link', uri: 'edge://plant-a/plant://line-1/status', name: 'status' });
        // The list set in the edge's editor is answered on the hub; the flow's completion goes to the edge.
        const listed = await client.complete({ ref: { type: 'ref/resource', uri: 'edge://plant-a/sensor://{line}/readings' }, argument: { name: 'line', value: 'line-' } });
        assert.deepEqual(listed.completion.values, ['line-1', 'line-2', 'line-7']);
        const fromFlow = await client.complete({ ref: { type: 'ref/prompt', name: 'plant-a.report' }, argument: { name: 'line', value: 'line-7' } });
        assert.deepEqual(fromFlow.completion.values, ['line-7']);
      });
      await edge.waitForOutput('edge-prompt report line=line-2', since);
      await edge.waitForOutput('edge-complete line=line-7', since);
      assert.doesNotMatch(edge.output().slice(since), /edge-complete line=line-\n/, 'the list completion never reached the edge');
    });
  }

  it("checks a prompt's arguments on the hub (the edge never sees a bad request), and names the edge flow's error", async () => {
    const since = edge.output().length;
    await withClient(connect(hubUrl, 'modern'), async (client) => {
      const missing = await protocolError(client.getPrompt({ name: 'plant-a.report', arguments: {} }));
      assert.equal(missing.code, -32602);
      assert.match(missing.message, /Missing required argument "line" for prompt "plant-a.report"/);
      const unknown = await protocolError(client.readResource({ uri: 'edge://plant-a/plant://line-9/nothing' }));
      assert.match(unknown.message, /edge:\/\/plant-a\/plant:\/\/line-9\/nothing/);
      const broken = await protocolError(client.readResource({ uri: 'edge://plant-a/plant://line-1/broken' }));
      assert.equal(broken.code, -32603);
      assert.match(broken.message, /Site plant-a: Resource plant:\/\/line-1\/broken failed: sensor offline/);
    });
    assert.doesNotMatch(edge.output().slice(since), /edge-prompt report line=undefined|line-9/);
  });

  it("ends a read the edge flow never answers at the hub's time limit, and the edge flow hears the cancel", async () => {
    const since = edge.output().length;
    await withClient(connect(hubUrl, 'modern'), async (client) => {
      const slow = await protocolError(client.readResource({ uri: 'edge://plant-a/plant://line-1/slow' }));
      assert.match(slow.message, /Resource edge:\/\/plant-a\/plant:\/\/line-1\/slow was not answered within 2/);
    });
    await edge.waitForOutput('edge-read-cancel cancelled', since);
  });

  it('2026-07-28: a read whose edge flow asks the client turns input_required on the hub, and the answer reaches the edge flow as its next round', async () => {
    const since = edge.output().length;
    const client = new Client({ name: 'edge-content', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
    const shown: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      shown.push((request.params as { message: string }).message);
      return { action: 'accept', content: { show: true } } as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(hubUrl)));
    try {
      const read = await client.readResource({ uri: 'edge://plant-a/plant://line-1/locked' });
      assert.deepEqual(texts(read), ['lock-out log of line-1 shown=true']);
      assert.deepEqual(shown, ['Show the lock-out log?']);
    } finally {
      await client.close();
    }
    await edge.waitForOutput('edge-read plant://line-1/locked from=/hub round=1', since);
    // On the 2025 revisions a read has no stream to ask on: the edge flow is told so, as a local one is.
    await withClient(connect(hubUrl, 'legacy'), async (legacy) => {
      const refused = await protocolError(legacy.readResource({ uri: 'edge://plant-a/plant://line-1/locked' }));
      assert.match(refused.message, /cannot ask the client on the 2025 revisions/);
    });
  });

  it("2026-07-28: the edge flow's mcp-resource-updated reaches the hub's streams watching the hub URI", async () => {
    await withClient(connect(hubUrl, 'modern'), async (client) => {
      const heard: string[] = [];
      let wake: () => void = () => undefined;
      client.setNotificationHandler('notifications/resources/updated', (notification) => {
        heard.push(String(notification.params.uri));
        wake();
      });
      const subscription = await client.listen({ resourceSubscriptions: ['edge://plant-a/plant://line-1/status'] });
      assert.deepEqual(subscription.honoredFilter, { resourceSubscriptions: ['edge://plant-a/plant://line-1/status'] });
      const arrived = new Promise<void>((resolve) => (wake = resolve));
      const response = await fetch(`${edge.adminUrl}/inject/update-status`, { method: 'POST' });
      assert.equal(response.status, 200);
      await arrived;
      assert.deepEqual(heard, ['edge://plant-a/plant://line-1/status']);
      await subscription.close();
    });
  });

  it("the edge stopping ends a pending read at once naming the site, and its items leave the hub", async () => {
    await withClient(connect(hubUrl, 'modern'), async (client) => {
      const started = Date.now();
      const pending = protocolError(client.readResource({ uri: 'edge://plant-a/plant://line-1/slow' }));
      // Give the read time to reach the edge, then stop the edge on purpose (it says goodbye).
      await new Promise((resolve) => setTimeout(resolve, 300));
      await edge.stop();
      const ended = await pending;
      assert.ok(Date.now() - started < 1_900, `ended at once, not at the 2 s limit (${Date.now() - started} ms)`);
      assert.match(ended.message, /Site plant-a went away before answering \(site plant-a stopped\)/);
    });
    // With no content left the hub declares neither resources nor prompts again.
    for (let attempt = 0; ; attempt += 1) {
      const capabilities = await withClient(connect(hubUrl, 'modern'), async (client) => client.getServerCapabilities());
      if (!capabilities?.resources && !capabilities?.prompts) break;
      assert.ok(attempt < 50, 'the hub still declares resources or prompts after the edge left');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
