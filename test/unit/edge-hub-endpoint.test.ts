// A hub endpoint in this process (EndpointController over a real listener and the real MemoryStore)
// with the official MCP client in both eras; the edge sites are this test, speaking the edge protocol
// on the store's channels, so each can do what a restarted, departed or hostile edge does.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { setImmediate as flush } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import type { AuthRegistry } from '../../lib/auth/bridge/auth-registry.js';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';
import { siteChannel } from '../../lib/edge/edge-protocol.js';
import { ListenerRegistry } from '../../lib/http/listener-registry.js';
import { EndpointController } from '../../lib/mcp/endpoint-controller.js';
import { ToolRegistry } from '../../lib/mcp/tool-registry.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { connect } from '../support/mcp-http.js';
import { freePort } from '../support/ports.js';
import { recordingLogger } from '../support/recording-logger.js';

const offered = (name: string) => ({ listing: { name, inputSchema: { type: 'object' } }, timeoutMs: 60_000, maxDurationMs: 60_000 });
const text = (result: any) => (result.content as Array<{ text: string }>).map((part) => part.text).join('\n');

describe('a hub endpoint and its edge sites', () => {
  let store: MemoryStore;
  let logger: ReturnType<typeof recordingLogger>;
  let controller: EndpointController;
  let url: string;
  const clients: Client[] = [];
  /** The calls the hub sent each site, as the site's edge would receive them. */
  let calls: Array<{ site: string; message: any }>;
  let heardCall: (() => void) | undefined;
  /** Resolves when the next call reaches a site (ask before making the call). */
  const nextCall = () => new Promise<void>((resolve) => (heardCall = resolve));

  const announce = async (site: string, instance: string, tools = [offered('x')]) => {
    await store.publish(siteChannel(site, 'announce'), JSON.stringify({ t: 'announce', site, instance, tools }));
    await flush();
  };
  const bye = async (site: string, instance: string) => {
    await store.publish(siteChannel(site, 'announce'), JSON.stringify({ t: 'bye', site, instance }));
    await flush();
  };
  const client = async (era: 'legacy' | 'modern') => {
    const opened = await connect(url, era);
    clients.push(opened);
    return opened;
  };
  const names = async (on: Client) => (await on.listTools()).tools.map((tool) => tool.name).sort();
  const warnings = () => logger.lines.filter((line) => line.startsWith('warn '));

  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/hub`;
    store = new MemoryStore();
    logger = recordingLogger();
    controller = new EndpointController({
      settings: parseFlowServerConfig({ serverName: 'hub', path: '/hub', access: 'local', hubSites: 'plant-a plant-b' }),
      runtime: { server: 'own', port, host: '127.0.0.1', pathPrefix: '', baseUrl: undefined, trustedProxies: [] },
      site: new ListenerRegistry().site({ port, host: '127.0.0.1' }),
      tools: new ToolRegistry(),
      access: { auth: undefined, authRegistry: undefined as unknown as AuthRegistry, audit: () => {} },
      logger,
      execute: () => {},
      onState: () => {},
      edgeStore: store,
    });
    await controller.start();
    for (const site of ['plant-a', 'plant-b']) {
      store.subscribe(siteChannel(site, 'calls'), (message) => {
        calls.push({ site, message: JSON.parse(message) });
        heardCall?.();
      });
    }
  });
  after(async () => {
    for (const open of clients) await open.close().catch(() => undefined);
    await controller.stop('test over');
    await store.close();
  });
  beforeEach(() => {
    calls = [];
    logger.lines.length = 0;
  });
  afterEach(async () => {
    await bye('plant-a', 'a1');
    await bye('plant-a', 'a2');
    await bye('plant-b', 'b1');
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`tells a ${era} caller of a tool whose site has just gone away that the site is offline, in a tool result naming it`, async () => {
      const on = await client(era);
      await announce('plant-a', 'a1');
      assert.deepEqual(await names(on), ['plant-a.x']);
      await bye('plant-a', 'a1');
      assert.deepEqual(await names(on), [], 'gone from the list');
      const result = await on.callTool({ name: 'plant-a.x', arguments: {} });
      assert.equal(result.isError, true);
      assert.equal(text(result), 'Site plant-a is offline (site plant-a stopped): tool "plant-a.x" is back when its edge Node-RED announces it again.');
      assert.equal(calls.length, 0, 'nothing is sent to the departed site');
      // A name no site ever offered is still an unknown tool (-32602).
      await assert.rejects(on.callTool({ name: 'plant-a.never', arguments: {} }), /Unknown tool "plant-a\.never"/);
      // Back, the site's tool is called as before.
      await announce('plant-a', 'a2');
      const arrived = nextCall();
      const call = on.callTool({ name: 'plant-a.x', arguments: {} });
      await arrived;
      assert.equal(calls[0]?.message.instance, 'a2');
      await store.publish(siteChannel('plant-a', 'answers'), JSON.stringify({ t: 'answer', id: calls[0]!.message.id, result: 'opened' }));
      assert.equal(text(await call), 'opened');
    });
  }

  it('ends a call pending on an edge at once when a new instance of its site announces itself (the edge restarted)', async () => {
    const on = await client('modern');
    await announce('plant-a', 'a1');
    await names(on);
    const arrived = nextCall();
    const pending = on.callTool({ name: 'plant-a.x', arguments: {} });
    await arrived;
    assert.equal(calls[0]?.message.instance, 'a1');
    await announce('plant-a', 'a2');
    const result = await pending;
    assert.equal(result.isError, true);
    assert.equal(text(result), 'Site plant-a restarted before answering: the edge Node-RED the call was sent to was replaced by a new instance.');
    assert.deepEqual(await names(on), ['plant-a.x'], 'the site stays listed');
  });

  it('serves neither of two edge tools that claim one hub name, and says so once while it lasts', async () => {
    const on = await client('legacy');
    await announce('plant-b', 'b1', [offered('y'), offered('y'), offered('z')]);
    assert.deepEqual(await names(on), ['plant-b.z']);
    // Another site's change rebuilds the catalog: the clash is not said again.
    await announce('plant-a', 'a1');
    assert.deepEqual(await names(on), ['plant-a.x', 'plant-b.z']);
    await assert.rejects(on.callTool({ name: 'plant-b.y', arguments: {} }), /Unknown tool "plant-b\.y"/);
    assert.deepEqual(warnings(), [
      'warn edge tool plant-b.y of site plant-b was refused on /hub: another edge tool has the same name on this hub, so neither is served',
    ]);
    assert.equal(calls.length, 0);
  });
});
