import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { plantAHubFlows, startEdgeRedis, untilHubLists, type EdgeRedis } from '../support/edge-redis.js';
import { answer, flowServer, router, runtime, stopJobOnCancel, storage, tab, tool, topicSwitch } from '../support/flows.js';
import { connect, waitForEndpoint, withClient, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { JOB } from '../support/reporting-jobs.js';
import { TaskClient } from '../support/task-client.js';

/**
 * Tasks of an edge tool: two hub Node-REDs (A and B) and one edge Node-RED (site plant-a) on a real
 * Redis, each as the ACL user docs/edge-relay.md gives it. A task started on hub A keeps its record in
 * the hubs' Redis, so either hub answers tasks/get, tasks/result and tasks/cancel; the edge flow runs
 * it as a call and answers seconds later, kept alive by its progress.
 */

function edgeFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    { ...flowServer('fs', { runtime: 'rt', path: '/edge', wires: ['by-topic'] }), storage: 'st', edgeSite: 'plant-a' },
    topicSwitch('by-topic', { 'mcp-tool-execute': 'route', 'mcp-tool-cancel': 'on-cancel' }),
    router('route', { job: 'job-fn' }),
    answer('job-fn', JOB, 'fs'),
    answer('on-cancel', stopJobOnCancel('clearInterval'), ''),
    // A 2 s time limit: the jobs below run longer, kept alive by their progress.
    { ...tool('t-job', { name: 'job', endpoint: '/edge', timeout: 2, taskSupport: 'optional' }), maxDuration: '120' },
  ];
}

describe(`tasks of an edge tool, run by either of two hubs, on ${nodeRedPackage}`, () => {
  let store: EdgeRedis;
  let hubA: NodeRedProcess;
  let hubB: NodeRedProcess;
  let edge: NodeRedProcess;
  let urlA: string;
  let urlB: string;

  before(async () => {
    store = await startEdgeRedis('mcptest');
    const [portA, portB, edgePort] = [await freePort(), await freePort(), await freePort()];
    urlA = `http://127.0.0.1:${portA}/hub`;
    urlB = `http://127.0.0.1:${portB}/hub`;
    const hubEnv = { env: { MCP_TEST_REDIS_URL: store.hubUrl } };
    [hubA, hubB, edge] = await Promise.all([
      startNodeRed(plantAHubFlows(portA), hubEnv),
      startNodeRed(plantAHubFlows(portB), hubEnv),
      startNodeRed(edgeFlows(edgePort), { env: { MCP_TEST_REDIS_URL: store.edgeUrl } }),
    ]);
    await Promise.all([waitForEndpoint(urlA), waitForEndpoint(urlB)]);
    await Promise.all([untilHubLists(urlA, 'plant-a.job'), untilHubLists(urlB, 'plant-a.job')]);
  });

  after(async () => {
    await Promise.all([hubA?.stop(), hubB?.stop(), edge?.stop()]);
    await store?.redis.stop();
  });

  it('lists the edge tool with the task support the edge declares (2025-11-25; 2026-07-28 declares none per tool)', async () => {
    await withClient(connect(urlA, 'legacy'), async (client) => {
      const listed = (await client.listTools()).tools.find((entry) => entry.name === 'plant-a.job');
      assert.deepEqual(listed?.execution, { taskSupport: 'optional' });
    });
  });

  it('2026-07-28: a task started on hub A runs on the edge for longer than its time limit, and hub B inlines its result', async () => {
    const since = edge.output().length;
    const onA = await TaskClient.connect(urlA, 'modern');
    const onB = await TaskClient.connect(urlB, 'modern');
    try {
      const created = await onA.call('plant-a.job', { steps: 10, intervalMs: 300 });
      assert.equal(created['resultType'], 'task');
      const taskId = TaskClient.taskIdOf(created);
      assert.equal((await onB.get(taskId))['status'], 'working');
      const done = await onB.untilDone(taskId);
      assert.equal(done['status'], 'completed', JSON.stringify(done));
      assert.deepEqual(JSON.parse(done['result'].content[0].text), { steps: 10, progressToken: false });
      // Run once, on the edge.
      assert.equal(edge.output().slice(since).match(/job-started/g)?.length, 1);
    } finally {
      await Promise.all([onA.close(), onB.close()]);
    }
  });

  it('2025-11-25: a task started on hub A, and tasks/result on hub B waits for the edge', async () => {
    const onA = await TaskClient.connect(urlA, 'legacy');
    const onB = await TaskClient.connect(urlB, 'legacy');
    try {
      const taskId = TaskClient.taskIdOf(await onA.call('plant-a.job', { steps: 8, intervalMs: 300 }));
      const result = await onB.result(taskId);
      assert.deepEqual(JSON.parse(result['content'][0].text), { steps: 8, progressToken: false });
      assert.equal((await onA.get(taskId))['status'], 'completed');
    } finally {
      await Promise.all([onA.close(), onB.close()]);
    }
  });

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`${era}: tasks/cancel sent to hub B reaches the edge flow of a task hub A runs, once`, async () => {
      const since = edge.output().length;
      const onA = await TaskClient.connect(urlA, era);
      const onB = await TaskClient.connect(urlB, era);
      try {
        const taskId = TaskClient.taskIdOf(await onA.call('plant-a.job', { steps: 1000, intervalMs: 300 }));
        await edge.waitForOutput(/job-started \w+/, since);
        await onB.cancel(taskId);
        await edge.waitForOutput(/job-cancelled \w+ reason=cancelled stopped=true/, since);
        assert.equal((await onA.get(taskId))['status'], 'cancelled');
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(edge.output().slice(since).match(/job-cancelled/g)?.length, 1);
      } finally {
        await Promise.all([onA.close(), onB.close()]);
      }
    });
  }

  // Last: it stops the edge.
  it('ends the running tasks of an edge that goes away at once, naming the site', async () => {
    const since = edge.output().length;
    const onA = await TaskClient.connect(urlA, 'modern');
    try {
      const taskId = TaskClient.taskIdOf(await onA.call('plant-a.job', { steps: 1000, intervalMs: 300 }));
      await edge.waitForOutput(/job-started \w+/, since);
      const stopped = Date.now();
      await edge.stop();
      const done = await onA.untilDone(taskId, 5_000);
      assert.ok(Date.now() - stopped < 5_000);
      assert.equal(done['status'], 'completed');
      assert.equal(done['result'].isError, true);
      assert.match(done['result'].content[0].text, /^Site plant-a went away before answering/);
    } finally {
      await onA.close();
    }
  });
});
