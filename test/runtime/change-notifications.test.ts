import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Client } from '@modelcontextprotocol/client';
import { flowServer, prompt, resource, runtime, tab, tool, TAB } from '../support/flows.js';
import { connect, listenOnceAccepted, protocolError, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

/** An inject node that sends `payload` with `topic` into the endpoint `fs`, fired through the admin API. */
function inject(id: string, topic: string, payload: object): FlowNode {
  return {
    id,
    type: 'inject',
    z: TAB,
    name: id,
    props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }],
    repeat: '',
    crontab: '',
    once: false,
    onceDelay: 0.1,
    topic,
    payload: JSON.stringify(payload),
    payloadType: 'json',
    x: 100,
    y: 200,
    wires: [['fs']],
  };
}

function catchAll(): FlowNode {
  // Errors a Catch node sees are what users handle; the debug node writes them to the log.
  return { id: 'catch', type: 'catch', z: TAB, name: '', scope: null, uncaught: false, x: 100, y: 300, wires: [['caught']] };
}

function caughtLog(): FlowNode {
  return { id: 'caught', type: 'debug', z: TAB, name: 'caught', active: true, tosidebar: false, console: true, tostatus: false, complete: 'error', targetType: 'msg', x: 300, y: 300, wires: [] };
}

function flows(port: number, extra: FlowNode[] = [], maxStreams = 3): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    { ...flowServer('fs', { runtime: 'rt', path: '/watch' }), maxStreams: String(maxStreams) },
    resource('r-status', { uri: 'plant://line-1/status', endpoint: '/watch', source: 'static', text: 'running' }),
    resource('r-quiet', { uri: 'plant://line-2/status', endpoint: '/watch', source: 'static', text: 'idle' }),
    resource('r-readings', { uri: 'sensor://{line}/readings', endpoint: '/watch', source: 'static', text: 'readings of {{line}}' }),
    prompt('p-report', { name: 'report', endpoint: '/watch' }),
    tool('t-first', { name: 'first_tool', endpoint: '/watch' }),
    inject('update-status', 'mcp-resource-updated', { uri: 'plant://line-1/status' }),
    inject('update-template', 'mcp-resource-updated', { uri: 'sensor://line-7/readings' }),
    inject('update-quiet', 'mcp-resource-updated', { uri: 'plant://line-2/status' }),
    inject('update-unknown', 'mcp-resource-updated', { uri: 'nowhere://thing' }),
    inject('update-no-uri', 'mcp-resource-updated', { url: 'plant://line-1/status' }),
    catchAll(),
    caughtLog(),
    ...extra,
  ];
}

/** Collects the notifications of the given methods a client receives, and waits for them. */
function notifications(client: Client, methods: string[]) {
  const seen: Array<{ method: string; params?: Record<string, unknown> }> = [];
  const waiters = new Set<() => void>();
  for (const method of methods) {
    client.setNotificationHandler(method as 'notifications/tools/list_changed', (notification) => {
      seen.push(notification as { method: string; params?: Record<string, unknown> });
      for (const wake of waiters) wake();
    });
  }
  return {
    seen,
    /** Resolves with the `count`th notification (1-based) once it has arrived. */
    nth(count: number): Promise<{ method: string; params?: Record<string, unknown> }> {
      return new Promise((resolve) => {
        const check = () => {
          if (seen.length < count) return;
          waiters.delete(check);
          resolve(seen[count - 1]!);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

describe(`change notifications (subscriptions/listen, mcp-resource-updated) on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let port: number;
  let url: string;
  const clients: Client[] = [];
  const open = async (era: 'legacy' | 'modern') => {
    const client = await connect(url, era);
    clients.push(client);
    return client;
  };
  const fire = async (id: string) => {
    const response = await fetch(`${nodeRed.adminUrl}/inject/${id}`, { method: 'POST' });
    assert.equal(response.status, 200, `inject ${id}`);
  };

  before(async () => {
    port = await freePort();
    url = `http://127.0.0.1:${port}/watch`;
    nodeRed = await startNodeRed(flows(port), { logLevel: 'debug' });
    await waitForEndpoint(url);
  });

  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await nodeRed?.stop();
  });

  it('declares listChanged and subscribe to 2026-07-28 clients only; 2025 clients get -32601 for resources/subscribe', async () => {
    const modern = await open('modern');
    const capabilities = modern.getServerCapabilities();
    assert.deepEqual(capabilities?.tools, { listChanged: true });
    assert.deepEqual(capabilities?.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(capabilities?.prompts, { listChanged: true });

    const legacy = await open('legacy');
    const legacyCapabilities = legacy.getServerCapabilities();
    assert.deepEqual(legacyCapabilities?.tools, {});
    assert.deepEqual(legacyCapabilities?.resources, {});
    assert.deepEqual(legacyCapabilities?.prompts, {});
    const refused = await protocolError(legacy.subscribeResource({ uri: 'plant://line-1/status' }));
    assert.equal(refused.code, -32601);
  });

  it("delivers a flow's mcp-resource-updated to the stream subscribed to the URI (fixed and template URIs), and leaves unknown URIs out of the acknowledgement", async () => {
    const client = await open('modern');
    const heard = notifications(client, ['notifications/resources/updated']);
    const subscription = await client.listen({ resourceSubscriptions: ['plant://line-1/status', 'sensor://line-7/readings', 'nowhere://thing'] });
    assert.deepEqual(subscription.honoredFilter, { resourceSubscriptions: ['plant://line-1/status', 'sensor://line-7/readings'] });

    await fire('update-status');
    assert.equal((await heard.nth(1)).params?.uri, 'plant://line-1/status');
    await fire('update-template');
    assert.equal((await heard.nth(2)).params?.uri, 'sensor://line-7/readings');
    await subscription.close();
    assert.equal(await subscription.closed, 'local');
  });

  it('drops an update for a URI nobody subscribed to and for an unknown URI with one log line each, and reports an update without a URI to Catch', async () => {
    const since = nodeRed.output().length;
    await fire('update-quiet');
    await nodeRed.waitForOutput('mcp-resource-updated for plant://line-2/status not sent: no client is subscribed to it', since);
    await fire('update-unknown');
    await nodeRed.waitForOutput('Dropped mcp-resource-updated for nowhere://thing: no resource of this endpoint has that URI', since);
    await fire('update-no-uri');
    await nodeRed.waitForOutput('mcp-resource-updated needs msg.payload.uri', since);
    // The endpoint still serves.
    const client = await open('modern');
    assert.deepEqual((await client.readResource({ uri: 'plant://line-1/status' })).contents.map((c) => ('text' in c ? c.text : c.blob)), ['running']);
  });

  it('tells an open stream which lists a deploy changed, and nothing for a deploy that changed none', async () => {
    const client = await open('modern');
    const heard = notifications(client, ['notifications/tools/list_changed', 'notifications/resources/list_changed', 'notifications/prompts/list_changed']);
    const subscription = await client.listen({ toolsListChanged: true, resourcesListChanged: true, promptsListChanged: true });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true, resourcesListChanged: true, promptsListChanged: true });

    // A deploy of the changed nodes only keeps the endpoint (and its streams) running.
    const unrelated = { id: 'note', type: 'comment', z: TAB, name: 'changes nothing MCP serves', info: '', x: 500, y: 500, wires: [] };
    await nodeRed.deploy(flows(port, [unrelated]), 'nodes');
    await nodeRed.deploy(flows(port, [unrelated, prompt('p-second', { name: 'second_report', endpoint: '/watch' })]), 'nodes');
    assert.equal((await heard.nth(1)).method, 'notifications/prompts/list_changed', 'the first deploy changed no list');
    assert.ok((await client.listPrompts()).prompts.some((p) => p.name === 'second_report'));

    await nodeRed.deploy(flows(port, [unrelated, tool('t-second', { name: 'second_tool', endpoint: '/watch' })]), 'nodes');
    assert.equal((await heard.nth(2)).method, 'notifications/tools/list_changed');
    assert.equal((await heard.nth(3)).method, 'notifications/prompts/list_changed', 'second_report went away again');
    // The list says it may not be cached (the SDK's default hint), so the notification is never
    // contradicted by a cached copy: the client lists again and sees the new tool.
    const listed = await client.listTools();
    assert.ok(listed.tools.some((t) => t.name === 'second_tool'));
    assert.deepEqual([(listed as { ttlMs?: unknown }).ttlMs, (listed as { cacheScope?: unknown }).cacheScope], [0, 'private']);
    await subscription.close();
  });

  it('refuses a stream beyond Open streams with -32603, and takes one again once a stream closes', async () => {
    const since = nodeRed.output().length;
    const client = await open('modern');
    const streams = [];
    for (let i = 0; i < 3; i += 1) streams.push(await client.listen({ toolsListChanged: true }));
    const refused = await protocolError(client.listen({ toolsListChanged: true }));
    assert.equal(refused.code, -32603);
    await nodeRed.waitForOutput('subscriptions/listen on /watch refused: 3 streams are already open', since);
    await streams.pop()!.close();
    const again = await listenOnceAccepted(client);
    assert.ok(again, 'a stream is accepted again after one closed');
    await Promise.all([...streams, again].map((stream) => stream.close()));
  });

  it('ends open streams gracefully when the endpoint is redeployed, so clients know to listen again', async () => {
    const client = await open('modern');
    const subscription = await client.listen({ toolsListChanged: true });
    // A full deploy restarts the endpoint node itself.
    await nodeRed.deploy(flows(port, [], 4), 'full');
    assert.equal(await subscription.closed, 'graceful');
    await waitForEndpoint(url);
    const fresh = await open('modern');
    const again = await fresh.listen({ toolsListChanged: true });
    assert.deepEqual(again.honoredFilter, { toolsListChanged: true });
    await again.close();
  });
});
