import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOG_LEVEL_META_KEY, type Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { plantAHubFlows, startEdgeRedis, untilHubLists, type EdgeRedis } from '../support/edge-redis.js';
import { answer, flowServer, router, runtime, stopJobOnCancel, storage, tab, tool, topicSwitch } from '../support/flows.js';
import { connect, withClient, waitForEndpoint, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { CHATTY, JOB } from '../support/reporting-jobs.js';

/**
 * Progress and log lines of an edge flow, through a hub: one hub Node-RED and one edge Node-RED
 * (site plant-a) on a real Redis, each as the ACL user docs/edge-relay.md gives it, and the official
 * client on the hub in both eras. The edge flows are the ones that report locally in
 * progress-logging.test.ts, so what a client sees through the hub can be held to what it sees there.
 */

const PREFIX = 'mcptest';

function edgeFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    { ...flowServer('fs', { runtime: 'rt', path: '/edge', wires: ['by-topic'] }), storage: 'st', edgeSite: 'plant-a' },
    topicSwitch('by-topic', { 'mcp-tool-execute': 'route', 'mcp-tool-cancel': 'on-cancel' }),
    router('route', { job: 'job-fn', capped: 'job-fn', chatty: 'chatty-fn', wordy: 'wordy-fn' }),
    answer('job-fn', JOB, 'fs'),
    answer('on-cancel', stopJobOnCancel('clearInterval'), ''),
    answer('chatty-fn', CHATTY, 'fs'),
    // A log line larger than the hub takes from an edge, then a small one and the answer.
    answer(
      'wordy-fn',
      `const { executionId } = msg.payload;
node.send({ topic: 'mcp-tool-log', payload: { executionId, level: 'info', data: 'w'.repeat(70 * 1024) } });
node.send({ topic: 'mcp-tool-log', payload: { executionId, level: 'info', data: 'short' } });
node.send({ topic: 'mcp-tool-response', payload: { executionId, result: 'wordy done' } });
return null;`,
      'fs',
    ),
    // A 1 s time limit on the edge as on the hub: only progress keeps a longer job alive.
    { ...tool('t-job', { name: 'job', endpoint: '/edge', timeout: 1 }), maxDuration: '120' },
    { ...tool('t-capped', { name: 'capped', endpoint: '/edge', timeout: 1 }), maxDuration: '2' },
    tool('t-chatty', { name: 'chatty', endpoint: '/edge' }),
    tool('t-wordy', { name: 'wordy', endpoint: '/edge' }),
  ];
}

type Progress = { progress: number; total?: number; message?: string };

describe(`progress and log lines of an edge flow through a hub, on ${nodeRedPackage}`, () => {
  let store: EdgeRedis;
  let hub: NodeRedProcess;
  let edge: NodeRedProcess;
  let hubUrl: string;
  let spy: Redis;
  /** Every message on plant-a's answers channel, as the edge published it. */
  const answersChannel: string[] = [];

  const collectLogs = (client: Client) => {
    const lines: Array<{ level: string; data: unknown; logger?: string }> = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      lines.push({ level: notification.params.level, data: notification.params.data, ...(notification.params.logger ? { logger: notification.params.logger } : {}) });
    });
    return lines;
  };

  before(async () => {
    store = await startEdgeRedis(PREFIX);
    spy = new Redis(store.adminUrl);
    spy.on('message', (_channel: string, message: string) => answersChannel.push(message));
    await spy.subscribe(`${PREFIX}:edge:plant-a:answers`);
    const [hubPort, edgePort] = [await freePort(), await freePort()];
    hubUrl = `http://127.0.0.1:${hubPort}/hub`;
    [hub, edge] = await Promise.all([
      startNodeRed(plantAHubFlows(hubPort), { env: { MCP_TEST_REDIS_URL: store.hubUrl } }),
      startNodeRed(edgeFlows(edgePort), { env: { MCP_TEST_REDIS_URL: store.edgeUrl } }),
    ]);
    await waitForEndpoint(hubUrl);
    // The hub serves the edge's tools once the edge has announced them.
    await untilHubLists(hubUrl, 'plant-a.wordy');
  });

  after(async () => {
    spy?.disconnect();
    await Promise.all([hub?.stop(), edge?.stop()]);
    await store?.redis.stop();
  });

  for (const era of ['legacy', 'modern'] as Era[]) {
    describe(`${era} era`, () => {
      it("delivers the edge flow's progress in order before the result, and progress keeps a job three times its 1 s limit alive on hub and edge", async () => {
        const since = edge.output().length;
        await withClient(connect(hubUrl, era), async (client) => {
          const events: Array<Progress | 'result'> = [];
          const result = await client.callTool(
            { name: 'plant-a.job', arguments: { steps: 15, intervalMs: 200 } },
            { onprogress: (progress: Progress) => events.push(progress), resetTimeoutOnProgress: true, timeout: 1_000, maxTotalTimeout: 60_000 },
          );
          events.push('result');
          assert.equal(result.isError, undefined, JSON.stringify(result));
          // The edge flow is told the client sent a token, as a local flow is.
          assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0]!.text), { steps: 15, progressToken: true });
          assert.deepEqual(events, [...Array.from({ length: 15 }, (_, index) => ({ progress: index + 1, total: 15, message: `step ${index + 1}` })), 'result']);
        });
        await edge.waitForOutput(/job-started \w+ token=true/, since);
      });

      it('ends a job at its maximum total duration on the hub however much progress the edge reports, and the edge flow hears the cancel', async () => {
        const since = edge.output().length;
        await withClient(connect(hubUrl, era), async (client) => {
          const result = await client.callTool({ name: 'plant-a.capped', arguments: { steps: 1000, intervalMs: 200 } }, { onprogress: () => undefined, resetTimeoutOnProgress: true, maxTotalTimeout: 60_000 });
          assert.equal(result.isError, true);
          assert.match((result.content as Array<{ text: string }>)[0]!.text, /did not finish within 2 s \(its maximum total duration\)/);
        });
        await edge.waitForOutput(/job-cancelled \w+ reason=\w+ stopped=true/, since);
      });
    });
  }

  it('keeps progress alive for a client without a token too, and tells the edge flow there is none', async () => {
    const since = edge.output().length;
    await withClient(connect(hubUrl, 'legacy'), async (client) => {
      const result = await client.callTool({ name: 'plant-a.job', arguments: { steps: 6, intervalMs: 300 } });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0]!.text), { steps: 6, progressToken: false });
    });
    await edge.waitForOutput(/job-started \w+ token=false/, since);
  });

  it('legacy: relays no log line to a caller that set no level, then only lines at or above the level it set', async () => {
    const client = await connect(hubUrl, 'legacy');
    try {
      const lines = collectLogs(client);
      const sentBefore = answersChannel.length;
      await client.callTool({ name: 'plant-a.chatty', arguments: {} });
      assert.equal(lines.length, 0, JSON.stringify(lines));
      // Nothing nobody asked for crosses Redis either.
      assert.equal(answersChannel.slice(sentBefore).filter((text) => text.startsWith('{"t":"log"')).length, 0);
      await client.setLoggingLevel('warning');
      const result = await client.callTool({ name: 'plant-a.chatty', arguments: {} });
      assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'said everything');
      assert.deepEqual(lines.map((line) => line.level), ['warning', 'error', 'critical', 'alert', 'emergency']);
      assert.deepEqual(lines[0], { level: 'warning', data: { said: 'warning' }, logger: 'chatty' });
    } finally {
      await client.setLoggingLevel('debug').catch(() => undefined);
      await client.close();
    }
  });

  it('modern: relays log lines at or above the level the request names in its _meta', async () => {
    await withClient(connect(hubUrl, 'modern'), async (client) => {
      const lines = collectLogs(client);
      await client.callTool({ name: 'plant-a.chatty', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'error' } });
      assert.deepEqual(lines.map((line) => line.level), ['error', 'critical', 'alert', 'emergency']);
    });
  });

  it('drops a log line too large to relay on the edge, with a warning there, and the call goes on', async () => {
    const since = edge.output().length;
    await withClient(connect(hubUrl, 'modern'), async (client) => {
      const lines = collectLogs(client);
      const result = await client.callTool({ name: 'plant-a.wordy', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'info' } });
      assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'wordy done');
      assert.deepEqual(lines.map((line) => line.data), ['short']);
    });
    await edge.waitForOutput(/site plant-a did not relay a log of \d+ bytes: over 65536/, since);
  });

  it("never puts the client's progress token or anything of the hub's request on Redis: a report names the call's id only", () => {
    const notes = answersChannel.filter((text) => text.startsWith('{"t":"progress"')).map((text) => JSON.parse(text));
    assert.ok(notes.length >= 15, `progress crossed Redis: ${notes.length}`);
    const allowed = new Set(['t', 'id', 'progress', 'total', 'message']);
    for (const note of notes) assert.deepEqual(Object.keys(note).filter((key) => !allowed.has(key)), [], JSON.stringify(note));
    assert.ok(notes.every((note) => /^[0-9a-f]{32}$/.test(note.id)), 'each report names its call by the hub execution id');
  });
});
