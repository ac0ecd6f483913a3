import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, router, runtime, stopJobOnCancel, storage, tab, tool, topicSwitch, TAB } from '../support/flows.js';
import { connect, withClient, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { startServing } from '../support/serving.js';
import { twoNodeRedsOnRedis } from '../support/two-node-reds.js';
import { TaskClient } from '../support/task-client.js';

/**
 * A job that answers after `ms` (its timer kept in flow context so a cancel can stop it); it says in
 * the log when it starts, with the task id the flow was given.
 */
const JOB = `const { executionId, arguments: args } = msg.payload;
node.warn('job-started ' + executionId + ' task=' + msg.mcp.taskId + ' instance=' + env.get('MCP_TEST_INSTANCE'));
const timer = setTimeout(() => {
  flow.set('job-' + executionId, undefined);
  node.send({ topic: 'mcp-tool-response', payload: { executionId, result: { label: args.label, instance: env.get('MCP_TEST_INSTANCE') } } });
}, args.ms);
flow.set('job-' + executionId, timer);
return null;`;

/** Stops the job an mcp-tool-cancel names, and says so in the log. */
const ON_CANCEL = stopJobOnCancel('clearTimeout');

const reply = (result: string) => `return { topic: 'mcp-tool-response', payload: { executionId: msg.payload.executionId, ${result} } };`;

function taskFlows(port: number, options: { redis?: boolean } = {}): FlowNode[] {
  const server = (id: string, path: string, extra: Record<string, unknown> = {}) => ({
    ...flowServer(id, { runtime: 'rt', path, wires: ['by-topic'] }),
    ...(options.redis ? { storage: 'store' } : {}),
    ...extra,
  });
  return [
    tab(),
    runtime('rt', port),
    ...(options.redis ? [storage('store', 'redis', 'MCP_TEST_REDIS_URL')] : []),
    server('fs', '/tasks', { maxTaskResultKb: '64' }),
    server('fs-limited', '/limited', { maxTasksPerCaller: '2' }),
    server('fs-many', '/many', { maxTasksPerCaller: '1000', maxStoredTasksPerCaller: '2000' }),
    // Stored-task caps: 3 for one caller (on Local access every caller), and 2 for a whole endpoint.
    server('fs-capped', '/capped', { maxStoredTasksPerCaller: '3' }),
    server('fs-capped-all', '/capped-all', { maxStoredTasks: '2' }),
    topicSwitch('by-topic', { 'mcp-tool-execute': 'route', 'mcp-tool-cancel': 'on-cancel' }),
    router('route', { job: 'job-fn', must_task: 'must-fn', quick: 'quick-fn', fails: 'fails-fn', big: 'big-fn' }),
    // Answers go back to whichever endpoint sent the call: both are wired to the same flow.
    { ...answer('job-fn', JOB, 'fs'), wires: [['fs', 'fs-limited', 'fs-many', 'fs-capped', 'fs-capped-all']] },
    answer('on-cancel', ON_CANCEL, ''),
    { ...answer('must-fn', reply(`result: 'ran as a task ' + msg.mcp.taskId`), 'fs'), wires: [['fs', 'fs-limited']] },
    answer('quick-fn', reply(`result: 'quick'`), 'fs'),
    answer('fails-fn', reply(`error: 'the job broke'`), 'fs'),
    answer('big-fn', reply(`result: 'x'.repeat(200 * 1024)`), 'fs'),
    tool('t-job', { name: 'job', endpoint: '*', timeout: 120, taskSupport: 'optional' }),
    tool('t-must', { name: 'must_task', endpoint: '/tasks', taskSupport: 'required' }),
    tool('t-quick', { name: 'quick', endpoint: '/tasks' }),
    tool('t-fails', { name: 'fails', endpoint: '/tasks', taskSupport: 'optional' }),
    tool('t-silent', { name: 'silent', endpoint: '/tasks', timeout: 1, taskSupport: 'optional' }),
    tool('t-big', { name: 'big', endpoint: '/tasks', taskSupport: 'optional' }),
    { id: 'metrics', type: 'mcp-server-metrics', z: TAB, name: '', runtime: 'rt', x: 100, y: 300, wires: [['telemetry-log']] },
    answer('telemetry-log', `node.warn('telemetry ' + msg.payload.tool + ' ' + msg.payload.status);\nreturn null;`, ''),
  ];
}

/** The JSON-RPC error code a rejected request carried. */
async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: number }).code;
  }
  assert.fail('the request was expected to fail');
}

describe(`tasks on one Node-RED (${nodeRedPackage})`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;
  let limitedUrl: string;

  before(async () => {
    ({ nodeRed, url } = await startServing(taskFlows, '/tasks', { env: { MCP_TEST_INSTANCE: 'solo' } }));
    limitedUrl = new URL('/limited', url).href;
  });
  after(() => nodeRed?.stop());

  it('lists each tool with its task support and announces tasks in each era', async () => {
    for (const era of ['legacy', 'modern'] as Era[]) {
      await withClient(connect(url, era), async (client) => {
        const tools = (await client.listTools()).tools;
        const capabilities = client.getServerCapabilities() as Record<string, any>;
        if (era === 'legacy') {
          assert.deepEqual(tools.find((listed) => listed.name === 'must_task')?.execution, { taskSupport: 'required' });
          assert.deepEqual(tools.find((listed) => listed.name === 'job')?.execution, { taskSupport: 'optional' });
          assert.equal(tools.find((listed) => listed.name === 'quick')?.execution, undefined);
          assert.deepEqual(capabilities['tasks'], { list: {}, cancel: {}, requests: { tools: { call: {} } } });
        } else {
          // 2026-07-28 has no per-tool declaration: the server decides per call.
          assert.deepEqual(capabilities['extensions']?.['io.modelcontextprotocol/tasks'], {});
        }
      });
    }
  });

  it('2026-07-28: answers a task at once, tells the flow its id, and inlines the result on tasks/get', async () => {
    await withClient(TaskClient.connect(url, 'modern'), async (client) => {
      const since = nodeRed.output().length;
      const created = await client.call('job', { ms: 300, label: 'modern' });
      assert.equal(created['resultType'], 'task');
      assert.equal(created['status'], 'working');
      assert.equal(created['ttlMs'], 3_600_000);
      assert.equal(created['pollIntervalMs'], 1000);
      assert.equal(created['task'], undefined, 'flat, no v1 envelope');
      const taskId = TaskClient.taskIdOf(created);
      await nodeRed.waitForOutput(`task=${taskId}`, since);
      const done = await client.untilDone(taskId);
      assert.equal(done['status'], 'completed');
      assert.deepEqual(done['result'].structuredContent ?? JSON.parse(done['result'].content[0].text), { label: 'modern', instance: 'solo' });
    });
  });

  it('2025-11-25: a task parameter gets a task; tasks/result waits for the result; tasks/list shows it', async () => {
    await withClient(TaskClient.connect(url, 'legacy'), async (client) => {
      const created = await client.call('job', { ms: 300, label: 'legacy' });
      assert.equal(created['task'].status, 'working');
      assert.equal(created['task'].ttl, 3_600_000);
      assert.equal(created['task'].pollInterval, 1000);
      const taskId = TaskClient.taskIdOf(created);
      const result = await client.result(taskId);
      assert.deepEqual(JSON.parse(result['content'][0].text), { label: 'legacy', instance: 'solo' });
      assert.deepEqual(result['_meta']['io.modelcontextprotocol/related-task'], { taskId });
      assert.equal((await client.get(taskId))['status'], 'completed');
      const listed = await client.list();
      assert.ok(listed['tasks'].some((task: { taskId: string }) => task.taskId === taskId));
    });
  });

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`${era}: tasks/cancel ends the task as cancelled, tells the flow once, and reports cancelled telemetry`, async () => {
      await withClient(TaskClient.connect(url, era), async (client) => {
        const since = nodeRed.output().length;
        const taskId = TaskClient.taskIdOf(await client.call('job', { ms: 60_000, label: 'long' }));
        await nodeRed.waitForOutput(`task=${taskId}`, since);
        const ack = await client.cancel(taskId);
        if (era === 'modern') assert.equal(ack['taskId'], undefined, 'an empty acknowledgement');
        else assert.equal(ack['status'], 'cancelled');
        await nodeRed.waitForOutput(/job-cancelled \w+ reason=cancelled stopped=true/, since);
        await nodeRed.waitForOutput('telemetry job cancelled', since);
        assert.equal((await client.get(taskId))['status'], 'cancelled');
        // Cancelling again: 2026-07-28 acknowledges, 2025-11-25 refuses a task that has ended.
        if (era === 'modern') assert.deepEqual(Object.keys(await client.cancel(taskId)).filter((key) => key !== '_meta' && key !== 'resultType'), []);
        else assert.equal(await codeOf(client.cancel(taskId)), -32602);
        assert.equal(nodeRed.output().slice(since).match(/job-cancelled/g)?.length, 1);
      });
    });
  }

  it('a tool error completes the task with isError; a flow that never answers fails it with a JSON-RPC error', async () => {
    await withClient(TaskClient.connect(url, 'modern'), async (client) => {
      const failed = await client.untilDone(TaskClient.taskIdOf(await client.call('fails', {})));
      assert.equal(failed['status'], 'completed');
      assert.equal(failed['result'].isError, true);
      assert.match(failed['result'].content[0].text, /the job broke/);
      const silent = await client.untilDone(TaskClient.taskIdOf(await client.call('silent', {})));
      assert.equal(silent['status'], 'failed');
      assert.equal(silent['error'].code, -32001);
      assert.match(silent['error'].message, /did not answer within 1 s/);
      assert.equal(silent['result'], undefined);
    });
  });

  it('shortens a result over the endpoint limit with a note, and the task still completes', async () => {
    await withClient(TaskClient.connect(url, 'modern'), async (client) => {
      const done = await client.untilDone(TaskClient.taskIdOf(await client.call('big', {})));
      assert.equal(done['status'], 'completed');
      assert.ok(JSON.stringify(done['result']).length < 70 * 1024, 'kept within 64 KB');
      assert.ok(done['result']._meta?.['io.flowmcp/truncated'], 'the truncation note');
    });
  });

  it('refuses what a tool does not allow, with the code each revision defines', async () => {
    const modern = await TaskClient.connect(url, 'modern', { declareExtension: false });
    const legacy = await TaskClient.connect(url, 'legacy');
    try {
      // 2026-07-28: a required task needs the extension (-32021); an optional one runs as a plain call.
      assert.equal(await codeOf(modern.call('must_task', {})), -32021);
      const plain = await modern.call('job', { ms: 1, label: 'plain' });
      assert.equal(plain['taskId'], undefined);
      assert.ok(Array.isArray(plain['content']));
      assert.equal(await codeOf(modern.get('no-such-task')), -32021, 'tasks/get needs the extension too');
      // 2025-11-25: -32601 both ways.
      assert.equal(await codeOf(legacy.call('must_task', {}, false)), -32601);
      assert.equal(await codeOf(legacy.call('quick', {})), -32601);
      assert.equal((await legacy.call('quick', {}, false))['content'][0].text, 'quick');
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it('answers -32602 for unknown task ids in both eras, and for a bad tasks/list cursor', async () => {
    for (const era of ['legacy', 'modern'] as Era[]) {
      await withClient(TaskClient.connect(url, era), async (client) => {
        assert.equal(await codeOf(client.get('no-such-task')), -32602, era);
        assert.equal(await codeOf(client.cancel('no-such-task')), -32602, era);
        if (era === 'legacy') {
          assert.equal(await codeOf(client.result('no-such-task')), -32602);
          assert.equal(await codeOf(client.list('not-a-cursor')), -32602);
        }
        // On 2026-07-28 the official client will not even send tasks/result or tasks/list, which the
        // extension removed; the conformance suite checks that the server answers them -32601.
      });
    }
  });

  it('limits the tasks one caller runs at once, and takes new ones when a task has ended', async () => {
    await withClient(TaskClient.connect(limitedUrl, 'modern'), async (client) => {
      const first = TaskClient.taskIdOf(await client.call('job', { ms: 60_000, label: 'a' }));
      TaskClient.taskIdOf(await client.call('job', { ms: 60_000, label: 'b' }));
      const refused = await client.call('job', { ms: 1, label: 'c' }).then(
        () => undefined,
        (error: Error & { code?: number }) => error,
      );
      assert.equal(refused?.code, -32000);
      assert.match(String(refused?.message), /already run 2 tasks/);
      await client.cancel(first);
      await client.untilDone(first);
      // The slot frees when the flow's call ends, just after the record says cancelled.
      let third: Record<string, any> | undefined;
      for (let attempt = 0; attempt < 50 && !third; attempt += 1) {
        third = await client.call('job', { ms: 1, label: 'c' }).catch(() => undefined);
        if (!third) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(third, 'a new task is accepted once one has ended');
      assert.equal((await client.untilDone(TaskClient.taskIdOf(third)))['status'], 'completed');
    });
  });

  it('runs 1,000 tasks at once on one endpoint and loses none', async () => {
    await withClient(TaskClient.connect(url.replace('/tasks', '/many'), 'modern'), async (client) => {
      const ids = await Promise.all(Array.from({ length: 1000 }, (_, index) => client.call('job', { ms: 300, label: `n${index}` }).then(TaskClient.taskIdOf)));
      assert.equal(new Set(ids).size, 1000);
      const done = await Promise.all(ids.map((id) => client.untilDone(id, 60_000)));
      assert.deepEqual(
        done.map((task) => [task['status'], JSON.parse(task['result'].content[0].text).label]),
        ids.map((_, index) => ['completed', `n${index}`]),
      );
    });
  });

  it('keeps a task when its client goes away: another client reads its result', async () => {
    const first = await TaskClient.connect(url, 'modern');
    const taskId = TaskClient.taskIdOf(await first.call('job', { ms: 500, label: 'orphan' }));
    await first.close();
    await withClient(TaskClient.connect(url, 'modern'), async (second) => {
      const done = await second.untilDone(taskId);
      assert.equal(done['status'], 'completed');
      assert.equal(JSON.parse(done['result'].content[0].text).label, 'orphan');
    });
  });
});

describe(`tasks across two Node-RED instances on one redis-server (${nodeRedPackage})`, () => {
  const pair = twoNodeRedsOnRedis((port) => taskFlows(port, { redis: true }), '/tasks');

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`${era}: a task started on A is polled and its result read on B`, async () => {
      const onA = await TaskClient.connect(pair.firstUrl, era);
      const onB = await TaskClient.connect(pair.secondUrl, era);
      try {
        const taskId = TaskClient.taskIdOf(await onA.call('job', { ms: 400, label: era }));
        // Durable before the answer: B knows the task at once.
        assert.ok(['working', 'completed'].includes((await onB.get(taskId))['status']));
        if (era === 'legacy') {
          const result = await onB.result(taskId);
          assert.deepEqual(JSON.parse(result['content'][0].text), { label: era, instance: 'A' });
        } else {
          const done = await onB.untilDone(taskId);
          assert.deepEqual(JSON.parse(done['result'].content[0].text), { label: era, instance: 'A' });
        }
      } finally {
        await onA.close();
        await onB.close();
      }
    });
  }

  it('caps the tasks stored for one caller across both instances, finished ones included, with -32000 in both eras', async () => {
    const capped = (url: string) => url.replace('/tasks', '/capped');
    const clients = [
      await TaskClient.connect(capped(pair.firstUrl), 'legacy'),
      await TaskClient.connect(capped(pair.secondUrl), 'modern'),
      await TaskClient.connect(capped(pair.firstUrl), 'modern'),
      await TaskClient.connect(capped(pair.secondUrl), 'legacy'),
    ];
    const [legacyOnA, modernOnB] = clients as [TaskClient, TaskClient];
    try {
      const ids = [await legacyOnA.call('job', { ms: 1, label: 'a1' }), await modernOnB.call('job', { ms: 1, label: 'b1' }), await legacyOnA.call('job', { ms: 1, label: 'a2' })].map(
        TaskClient.taskIdOf,
      );
      // Finished tasks still count: their records are kept for the TTL.
      for (const id of ids) assert.equal((await modernOnB.untilDone(id))['status'], 'completed');
      for (const client of clients) {
        const refused = await client.call('job', { ms: 1, label: 'refused' }).then(
          () => undefined,
          (error: Error & { code?: number }) => error,
        );
        assert.equal(refused?.code, -32000, `${client.era}: ${refused?.message}`);
        assert.match(String(refused?.message), /^Too many stored tasks: \/capped already keeps 3 of your tasks \(each is kept for 3600 s after it starts, finished or not\); retry when older ones have expired\.$/);
      }
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('caps the tasks stored for a whole endpoint across both instances', async () => {
    const all = (url: string) => url.replace('/tasks', '/capped-all');
    const onA = await TaskClient.connect(all(pair.firstUrl), 'modern');
    const onB = await TaskClient.connect(all(pair.secondUrl), 'modern');
    try {
      TaskClient.taskIdOf(await onA.call('job', { ms: 1, label: 'a' }));
      TaskClient.taskIdOf(await onB.call('job', { ms: 1, label: 'b' }));
      const refused = await onA.call('job', { ms: 1, label: 'c' }).then(
        () => undefined,
        (error: Error & { code?: number }) => error,
      );
      assert.equal(refused?.code, -32000);
      assert.match(String(refused?.message), /^Too many stored tasks: \/capped-all already keeps 2 tasks /);
    } finally {
      await onA.close();
      await onB.close();
    }
  });

  it('a cancel sent to B stops the flow on A (mcp-tool-cancel there)', async () => {
    const onA = await TaskClient.connect(pair.firstUrl, 'modern');
    const onB = await TaskClient.connect(pair.secondUrl, 'modern');
    try {
      const since = pair.first.output().length;
      const taskId = TaskClient.taskIdOf(await onA.call('job', { ms: 60_000, label: 'remote-cancel' }));
      await pair.first.waitForOutput(`task=${taskId}`, since);
      await onB.cancel(taskId);
      assert.equal((await onB.get(taskId))['status'], 'cancelled');
      await pair.first.waitForOutput(/job-cancelled \w+ reason=cancelled stopped=true/, since, 10_000);
      assert.equal((await onA.get(taskId))['status'], 'cancelled');
    } finally {
      await onA.close();
      await onB.close();
    }
  });

  it('answers a retryable error while Redis does not answer, and the task is intact when it does', async () => {
    await withClient(TaskClient.connect(pair.secondUrl, 'modern'), async (client) => {
      const taskId = TaskClient.taskIdOf(await client.call('job', { ms: 100, label: 'outage' }));
      await client.untilDone(taskId);
      pair.redis.freeze();
      try {
        const error = await client.get(taskId).then(
          () => undefined,
          (caught: Error & { code?: number }) => caught,
        );
        assert.equal(error?.code, -32000);
        assert.match(String(error?.message), /temporarily unavailable; retry/);
      } finally {
        pair.redis.thaw();
      }
      const after = await client.get(taskId);
      assert.equal(after['status'], 'completed');
      assert.equal(JSON.parse(after['result'].content[0].text).label, 'outage');
    });
  });

  // Last: it kills instance A.
  it('reports a task failed when the instance running it dies', async () => {
    const onA = await TaskClient.connect(pair.firstUrl, 'modern');
    const since = pair.first.output().length;
    const taskId = TaskClient.taskIdOf(await onA.call('job', { ms: 120_000, label: 'doomed' }));
    await pair.first.waitForOutput(`task=${taskId}`, since);
    await onA.close().catch(() => undefined);
    await pair.first.kill();
    await withClient(TaskClient.connect(pair.secondUrl, 'modern'), async (onB) => {
      // Working until A's heartbeat lapses (10 s), then failed.
      const done = await onB.untilDone(taskId, 30_000);
      assert.equal(done['status'], 'failed');
      assert.match(done['error'].message, /instance running this task stopped/);
    });
  });
});
