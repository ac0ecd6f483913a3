import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { answer, flowServer, router, runtime, storage, tab, tool } from '../support/flows.js';
import { connect, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startTcpGate, type TcpGate } from '../support/tcp-gate.js';

/**
 * How an edge Node-RED starts, stops and restarts, as a hub on a real Redis sees it: the goodbye of
 * each way an edge stops (a Modified Nodes deploy, a Full deploy, SIGTERM), an edge killed and
 * started again faster than the hub forgets it, and an edge's first announcement. A spy connection
 * records every message on the edge channels.
 */

const PREFIX = 'mcptest';
const ANNOUNCE = `${PREFIX}:edge:plant-a:announce`;

function edgeFlows(port: number, serverName = 'edge'): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_EDGE_REDIS_URL'),
    { ...flowServer('fs', { runtime: 'rt', path: '/edge', wires: ['route'], serverName }), storage: 'st', edgeSite: 'plant-a' },
    router('route', { x: 'x-fn', hold: 'hold-fn' }),
    tool('t-x', { name: 'x', endpoint: '/edge' }),
    answer('x-fn', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: 'x done on ' + env.get('EDGE_NAME') };\nreturn msg;`, 'fs'),
    // Never answers: the call stays pending on the hub until the edge goes away.
    tool('t-hold', { name: 'hold', endpoint: '/edge' }),
    answer('hold-fn', `node.warn('hold-started ' + msg.payload.executionId);\nreturn null;`, 'fs'),
  ];
}

function hubFlows(port: number): FlowNode[] {
  return [tab(), runtime('rt', port), storage('st', 'redis', 'MCP_TEST_REDIS_URL'), { ...flowServer('hub', { runtime: 'rt', path: '/hub', wires: [] }), storage: 'st', hubSites: 'plant-a' }];
}

interface Heard {
  readonly message: any;
}

describe(`an edge Node-RED stopping, restarting and starting, as its hub sees it, on ${nodeRedPackage}`, () => {
  let redis: RedisServer;
  let hub: NodeRedProcess;
  let edge: NodeRedProcess;
  let edgePort: number;
  let spy: Redis;
  let client: Client;
  const heard: Heard[] = [];
  const started: NodeRedProcess[] = [];

  const startEdge = async (name: string, url = redis.url) => {
    const port = await freePort();
    const process = await startNodeRed(edgeFlows(port), { env: { MCP_TEST_EDGE_REDIS_URL: url, EDGE_NAME: name } });
    started.push(process);
    return { process, port };
  };
  const names = async () => (await client.listTools()).tools.map((listed) => listed.name).sort();
  const text = (result: any) => (result.content as Array<{ text: string }>).map((part) => part.text).join('\n');
  /** Polls until `done` holds; the limit only stops a broken test from hanging. */
  const until = async <T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> => {
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const value = await check();
      if (value !== undefined) return value;
      await delay(50);
    }
    throw new Error(`never ${what}`);
  };
  const announcementAfter = (since: number) =>
    until(() => heard.slice(since).find((entry) => entry.message?.t === 'announce')?.message as { instance: string } | undefined, 'heard an announcement');
  const lastInstance = () => ([...heard].reverse().find((entry) => entry.message?.t === 'announce')?.message as { instance: string }).instance;
  const listed = () => until(async () => ((await names()).includes('plant-a.x') ? true : undefined), 'listed plant-a.x on the hub');
  /** Starts a call of plant-a.hold; resolves once the edge flow has it, with the call's result to come. */
  const hold = async (on: NodeRedProcess) => {
    const since = on.output().length;
    const result = client.callTool({ name: 'plant-a.hold', arguments: {} });
    await on.waitForOutput(/hold-started [0-9a-f]{32}/, since);
    return { result };
  };

  before(async () => {
    redis = await startRedis();
    spy = new Redis(redis.url);
    spy.on('message', (_channel: string, message: string) => heard.push({ message: JSON.parse(message) }));
    await spy.subscribe(ANNOUNCE);
    const hubPort = await freePort();
    hub = await startNodeRed(hubFlows(hubPort), { env: { MCP_TEST_REDIS_URL: redis.url } });
    started.push(hub);
    await waitForEndpoint(`http://127.0.0.1:${hubPort}/hub`);
    client = await connect(`http://127.0.0.1:${hubPort}/hub`, 'modern');
    ({ process: edge, port: edgePort } = await startEdge('edge-1'));
    await listed();
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    spy?.disconnect();
    await Promise.all(started.map((process) => process.stop()));
    await redis?.stop();
  });

  it('announces its tools as soon as its storage has connected, without a warning at start', async () => {
    assert.doesNotMatch(edge.output(), /could not publish/);
    // The first message of the site on Redis is an announcement of this instance's tools.
    const first = heard.find((entry) => entry.message?.t === 'announce');
    assert.ok(first, 'an announcement was heard');
    assert.deepEqual(first.message.tools.map((offered: any) => offered.listing.name).sort(), ['hold', 'x']);
  });

  // Every way an edge stops on purpose: its goodbye reaches the hub, which ends the pending call at
  // once with the goodbye's reason (not "stopped answering", which only the 6.5 s silence gives).
  const stops: Array<[string, () => Promise<void>]> = [
    ['a Modified Nodes deploy of its endpoint', () => edge.deploy(edgeFlows(edgePort, 'edge renamed'), 'nodes')],
    ['a Full deploy (the editor default), which closes the storage node too', async () => edge.deploy(await edge.getFlows(), 'full')],
    ['SIGTERM (Node-RED shutting down)', () => edge.stop()],
  ];
  for (const [how, stop] of stops) {
    it(`says goodbye on ${how}, before its storage closes`, async () => {
      await listed();
      const instance = lastInstance();
      const sinceHub = hub.output().length;
      const sinceHeard = heard.length;
      const pending = await hold(edge);
      await stop();
      const result = await pending.result;
      assert.equal(result.isError, true);
      assert.equal(text(result), 'Site plant-a went away before answering (site plant-a stopped).');
      await until(() => heard.slice(sinceHeard).find((entry) => entry.message?.t === 'bye' && entry.message.instance === instance), `heard the goodbye of ${instance}`);
      await hub.waitForOutput('site plant-a stopped: its tools are withdrawn from /hub', sinceHub);
      assert.doesNotMatch(hub.output().slice(sinceHub), /stopped answering/);
      // Back (redeployed, or started again), with a new instance.
      if (how.startsWith('SIGTERM')) ({ process: edge, port: edgePort } = await startEdge('edge-2'));
      const next = await announcementAfter(sinceHeard);
      assert.notEqual(next.instance, instance);
      await listed();
    });
  }

  it('ends the calls pending on an edge killed and restarted within the liveness window at once, naming the site', async () => {
    // The new edge starts while the old one runs, but its Redis connection is held at a gate: it can
    // announce only once the gate opens, right after the old one is killed (as a service manager
    // restarts a crashed Node-RED), long before the hub would forget a silent site.
    const gate: TcpGate = await startTcpGate(redis.port);
    try {
      const held = gate.hold();
      const restarted = startEdge('edge-3', `redis://127.0.0.1:${gate.port}`);
      await held;
      const { process: next } = await restarted;
      const pending = await hold(edge);
      const sinceHub = hub.output().length;
      await edge.kill();
      edge = next;
      gate.release();
      const result = await pending.result;
      assert.equal(result.isError, true);
      assert.equal(text(result), 'Site plant-a restarted before answering: the edge Node-RED the call was sent to was replaced by a new instance.');
      await hub.waitForOutput('site plant-a restarted (a new instance announced itself): 1 call(s) pending on the one before ended', sinceHub);
      assert.doesNotMatch(hub.output().slice(sinceHub), /stopped answering|two Node-RED instances/);
      // The new instance serves the site's calls (once it listens for them).
      const answered = await until(async () => {
        const attempt = await client.callTool({ name: 'plant-a.x', arguments: {} });
        return attempt.isError ? undefined : text(attempt);
      }, 'answered plant-a.x from the restarted edge');
      assert.equal(answered, 'x done on edge-3');
    } finally {
      await gate.stop();
    }
  });
});
