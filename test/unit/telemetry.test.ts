import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentAudit } from '../../lib/auth/audit.js';
import { contentTelemetry } from '../../lib/telemetry/content-telemetry.js';
import { TelemetryBus } from '../../lib/telemetry/telemetry-bus.js';
import { toolTelemetry, type ToolTelemetry } from '../../lib/telemetry/tool-telemetry.js';

function event(tool: string): ToolTelemetry {
  return toolTelemetry({ endpoint: '/mcp', tool, mode: 'flow', outcome: 'success', caller: {}, durationMs: 1.23456, responseBytes: 10 });
}
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('toolTelemetry', () => {
  it('fills every field with a typed, bounded value for an anonymous flow tool', () => {
    assert.deepEqual(event('echo'), {
      kind: 'tool',
      endpoint: '/mcp',
      tool: 'echo',
      user: 'unknown',
      client: 'unknown',
      mode: 'flow',
      status: 'success',
      durationMs: 1.235,
      responseBytes: 10,
      scannedNodes: 0,
      cached: false,
      inputRounds: 0,
      site: '',
      redisRole: '',
      redisSwitches: 0,
    });
  });

  it('says what the storage talks to, and how many failovers it followed', () => {
    const call = { endpoint: '/mcp', tool: 'echo', mode: 'flow', outcome: 'success', caller: {}, durationMs: 1, responseBytes: 10 } as const;
    const seen = (storage: Parameters<typeof toolTelemetry>[1]) => {
      const { redisRole, redisSwitches } = toolTelemetry(call, storage);
      return [redisRole, redisSwitches];
    };
    assert.deepEqual(seen({ mode: 'memory' }), ['memory', 0]);
    assert.deepEqual(seen({ mode: 'redis' }), ['standalone', 0]);
    assert.deepEqual(seen({ mode: 'redis', primary: { role: 'primary', address: '10.0.0.12:6379', since: 1, switches: 2 } }), ['sentinel-primary', 2]);
    assert.deepEqual(seen({ mode: 'redis', primary: { role: 'cluster', address: 'a:1,b:2,c:3', since: 1, switches: 1 } }), ['cluster', 1]);
  });

  it('names the edge site a relayed call went to', () => {
    const relayed = toolTelemetry({ endpoint: '/hub', tool: 'plant-a.open_valve', mode: 'flow', outcome: 'success', caller: {}, durationMs: 1, responseBytes: 10, site: 'plant-a' });
    assert.equal(relayed.site, 'plant-a');
  });

  it('counts the rounds of questions a flow asked', () => {
    const asked = toolTelemetry({ endpoint: '/mcp', tool: 'open_garage_door', mode: 'flow', outcome: 'input_required', caller: {}, durationMs: 1, responseBytes: 10, inputRounds: 2 });
    assert.deepEqual([asked.status, asked.inputRounds], ['input_required', 2]);
  });

  it('names the user by e-mail, else subject, and keeps get_flow facts', () => {
    const signedIn = toolTelemetry({
      endpoint: '/admin',
      tool: 'get_flow',
      outcome: 'success',
      caller: { subject: 'u-1', email: 'ada@example.test', client: 'claude' },
      durationMs: 5,
      responseBytes: 200,
      mode: 'tabs',
      scannedNodes: 42,
      cached: true,
    });
    assert.equal(signedIn.user, 'ada@example.test');
    assert.equal(signedIn.client, 'claude');
    assert.equal(signedIn.mode, 'tabs');
    assert.equal(signedIn.scannedNodes, 42);
    assert.equal(signedIn.cached, true);
    assert.equal(toolTelemetry({ endpoint: '/x', tool: 't', mode: 'flow', outcome: 'error', caller: { subject: 'u-2' }, durationMs: 0, responseBytes: 0 }).user, 'u-2');
  });

  it('reports a refused call with its refusal as the status', () => {
    const refused = toolTelemetry({ endpoint: '/x', tool: 'unknown', mode: 'unknown', outcome: 'unauthenticated', caller: {}, durationMs: 0, responseBytes: 0 });
    assert.deepEqual([refused.tool, refused.mode, refused.status, refused.user], ['unknown', 'unknown', 'unauthenticated', 'unknown']);
  });
});

describe('TelemetryBus', () => {
  it('delivers on a later turn, never inside publish', async () => {
    const bus = new TelemetryBus();
    const seen: string[] = [];
    bus.subscribe('metrics-1', (e) => seen.push(e.kind === 'tool' ? e.tool : e.name));
    bus.publish(event('a'));
    bus.publish(event('b'));
    assert.deepEqual(seen, []);
    await nextTurn();
    assert.deepEqual(seen, ['a', 'b']);
  });

  it('refuses a second subscriber and accepts it after the first leaves', () => {
    const bus = new TelemetryBus();
    assert.equal(bus.subscribe('one', () => {}), true);
    assert.equal(bus.subscribe('two', () => {}), false);
    bus.unsubscribe('one');
    assert.equal(bus.subscribe('two', () => {}), true);
  });

  it('keeps delivering when the subscriber throws, and publish never throws', async () => {
    const bus = new TelemetryBus();
    const seen: string[] = [];
    bus.subscribe('m', (e) => {
      seen.push(e.kind === 'tool' ? e.tool : e.name);
      throw new Error('downstream broke');
    });
    assert.doesNotThrow(() => bus.publish(event('a')));
    bus.publish(event('b'));
    await nextTurn();
    assert.deepEqual(seen, ['a', 'b']);
  });

  it('delivers every event of a burst, in order, on the next turn', async () => {
    const bus = new TelemetryBus();
    const seen: string[] = [];
    bus.subscribe('m', (e) => seen.push(e.kind === 'tool' ? e.tool : e.name));
    for (let i = 0; i < 10_005; i += 1) bus.publish(event(`t${i}`));
    assert.equal(seen.length, 0, 'nothing is delivered during the calls themselves');
    await nextTurn();
    assert.equal(seen.length, 10_005);
    assert.equal(seen[0], 't0');
    assert.equal(seen.at(-1), 't10004');
  });

  it('does nothing without a subscriber', async () => {
    const bus = new TelemetryBus();
    bus.publish(event('a'));
    const seen: string[] = [];
    bus.subscribe('m', (e) => seen.push(e.kind === 'tool' ? e.tool : e.name));
    await nextTurn();
    assert.deepEqual(seen, []);
  });
});

describe('telemetry of resources, prompts and completions', () => {
  const read = contentTelemetry({
    kind: 'resource',
    endpoint: '/plant',
    name: 'sensors://{line}/readings',
    outcome: 'timeout',
    caller: { email: 'ada@example.com', client: 'claude' },
    durationMs: 1000.12345,
    responseBytes: 0,
    mode: 'flow',
  });

  it('names the kind and the declared template, never the URI read', () => {
    assert.deepEqual(read, {
      kind: 'resource',
      endpoint: '/plant',
      name: 'sensors://{line}/readings',
      user: 'ada@example.com',
      client: 'claude',
      mode: 'flow',
      status: 'timeout',
      durationMs: 1000.123,
      responseBytes: 0,
    });
  });

  it('tells tool events apart by kind: tool', () => {
    assert.equal(toolTelemetry({ endpoint: '/x', tool: 't', mode: 'flow', outcome: 'success', caller: {}, durationMs: 1, responseBytes: 2 }).kind, 'tool');
  });

  it('delivers them only to a subscriber that asked for them, so tool-only flows see tool calls only', async () => {
    const toolsOnly = new TelemetryBus();
    const seen: string[] = [];
    toolsOnly.subscribe('m', (e) => seen.push(e.kind));
    assert.equal(toolsOnly.wantsContent, false);
    toolsOnly.publish(read);
    toolsOnly.publish(event('a'));
    await nextTurn();
    assert.deepEqual(seen, ['tool']);

    const everything = new TelemetryBus();
    const all: string[] = [];
    everything.subscribe('m', (e) => all.push(e.kind), { content: true });
    assert.equal(everything.wantsContent, true);
    everything.publish(read);
    everything.publish(event('a'));
    await nextTurn();
    assert.deepEqual(all, ['resource', 'tool']);
  });

  it('audits a read by its declared template and caller, without the URI values', () => {
    const line = contentAudit({ kind: 'resource', endpoint: '/plant', name: 'sensors://{line}/readings', outcome: 'success', caller: { subject: 'u-1', client: 'claude', session: 'abcdefabcdef' }, durationMs: 12.6, responseBytes: 10, mode: 'flow' });
    assert.deepEqual(line, { event: 'mcp.resource_read', outcome: 'success', resource: 'sensors://{line}/readings', subject: 'u-1', client: 'claude', session: 'abcdefabcdef', durationMs: 13 });
    assert.deepEqual(contentAudit({ kind: 'prompt', endpoint: '/p', name: 'report', outcome: 'invalid_arguments', caller: {}, durationMs: 0, responseBytes: 0, mode: 'static' }), {
      event: 'mcp.prompt_get',
      outcome: 'invalid_arguments',
      prompt: 'report',
      durationMs: 0,
    });
    assert.equal(contentAudit({ kind: 'completion', endpoint: '/p', name: 'report', outcome: 'success', caller: {}, durationMs: 0, responseBytes: 0, mode: 'flow' })?.event, 'mcp.completion');
  });
});
