import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, runtime, storage, tab, tool, topicSwitch } from '../support/flows.js';
import { JSON_HEADERS, rawRequest, withClient, type RawResponse } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { startServing } from '../support/serving.js';
import { twoNodeRedsOnRedis } from '../support/two-node-reds.js';
import { TASKS_EXTENSION, TaskClient } from '../support/task-client.js';

/**
 * Tasks whose flow asks the client (mcp-tool-input), through real Node-RED and the official MCP
 * client: on 2026-07-28 the task turns input_required, tasks/get shows the questions, tasks/update
 * (on any instance sharing the storage) answers them and the flow gets a new round; a 2025-11-25
 * task cannot ask, and neither can a task asking for what its tool or its client does not declare.
 */

/**
 * Every tool's flow: it logs each mcp-tool-execute (round, task and instance), asks in its first
 * round, and answers a later round with a text built from the answers plus everything it was given.
 */
const ASKER = `const p = msg.payload;
node.warn('task-execute ' + p.toolName + ' ' + p.executionId + ' round=' + (p.inputRound || 0) + ' task=' + msg.mcp.taskId + ' instance=' + env.get('MCP_TEST_INSTANCE') + ' answers=' + (p.inputResponses ? Object.keys(p.inputResponses).sort().join(',') : 'none'));
const ask = (requests) => ({ topic: 'mcp-tool-input', payload: { executionId: p.executionId, requests, state: { asked: p.toolName, firstExecution: p.executionId } } });
const CITY = { elicitation: { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
const SUMMARY = { sampling: { messages: [{ role: 'user', content: { type: 'text', text: 'Describe the city' } }], maxTokens: 50 } };
if (p.inputRound) {
  const r = p.inputResponses || {};
  const city = r.city && r.city.content ? r.city.content.city : '-';
  const summary = r.summary && r.summary.content ? r.summary.content.text : '-';
  return { topic: 'mcp-tool-response', payload: { executionId: p.executionId, result: {
    text: city + ': ' + summary,
    executionId: p.executionId,
    inputRound: p.inputRound,
    inputResponses: p.inputResponses ?? null,
    inputError: p.inputError ?? null,
    state: p.state ?? null,
    taskId: msg.mcp.taskId ?? null,
    instance: env.get('MCP_TEST_INSTANCE'),
  } } };
}
switch (p.toolName) {
  case 'task_ask': return ask({ city: CITY, summary: SUMMARY });
  case 'task_undeclared': return ask({ summary: SUMMARY });
  default: return ask({ city: CITY });
}`;

const ON_CANCEL = `node.warn('task-cancel ' + msg.payload.executionId + ' reason=' + msg.payload.reason);
return null;`;

const CITY_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const OSLO = { action: 'accept', content: { city: 'Oslo' } };
const BERGEN = { action: 'accept', content: { city: 'Bergen' } };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'A city by a fjord.' }, model: 'test-model', stopReason: 'endTurn' };

function askingTool(
  id: string,
  name: string,
  asks: string,
  options: { timeout?: number; maxDuration?: number; taskSupport?: 'optional' | 'required'; extra?: Record<string, unknown> } = {},
): FlowNode {
  const limits = { timeout: options.timeout ?? 60, ...(options.maxDuration !== undefined ? { maxDuration: options.maxDuration } : {}) };
  return { ...tool(id, { name, endpoint: '/tasks', ...limits, taskSupport: options.taskSupport ?? 'optional' }), asks, ...options.extra };
}

function askFlows(port: number, options: { redis?: boolean } = {}): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    ...(options.redis ? [storage('store', 'redis', 'MCP_TEST_REDIS_URL')] : []),
    { ...flowServer('fs', { runtime: 'rt', path: '/tasks', wires: ['by-topic'] }), ...(options.redis ? { storage: 'store' } : {}) },
    topicSwitch('by-topic', { 'mcp-tool-execute': 'asker', 'mcp-tool-cancel': 'on-cancel' }),
    answer('asker', ASKER, 'fs'),
    answer('on-cancel', ON_CANCEL, ''),
    askingTool('t-ask', 'task_ask', 'elicitation,sampling'),
    // A task waits for answers up to the longer of time limit and max. duration: both 2 s here.
    askingTool('t-slow', 'task_slow', 'elicitation', { timeout: 2, maxDuration: 2, taskSupport: 'required' }),
    askingTool('t-before', 'task_before', 'elicitation', { extra: { asksBeforeTask: true } }),
    // Declares elicitation, asks for sampling.
    askingTool('t-undeclared', 'task_undeclared', 'elicitation'),
  ];
}

/** What a task-running client declares besides the tasks extension. */
const CAN_ANSWER_ALL = { elicitation: { form: {} }, sampling: {} };

/** The JSON the flow answered with, as the task's result carries it. */
function flowSaw(result: Record<string, any> | undefined): Record<string, any> {
  assert.ok(result, 'the task has a result');
  assert.notEqual(result['isError'], true, JSON.stringify(result));
  return result['structuredContent'] ?? JSON.parse(result['content'][0].text);
}

/**
 * Runs `tool` as a task to its end: it completes without having asked the client, the flow told why in
 * an inputError with `code` for the sampling request it made. Returns the task id and what the flow saw.
 */
async function completedWithoutAsking(client: TaskClient, tool: string, code: number): Promise<{ taskId: string; saw: Record<string, any> }> {
  const taskId = TaskClient.taskIdOf(await client.call(tool, {}));
  const done = await client.untilDone(taskId);
  assert.equal(done['status'], 'completed', JSON.stringify(done));
  const saw = flowSaw(done['result']);
  assert.equal(saw['inputResponses'], null);
  assert.equal(saw['inputError'].code, code);
  assert.deepEqual(saw['inputError'].keys, ['summary']);
  return { taskId, saw };
}

/** Polls tasks/get until the task has `status`; fails when it ends (or `timeoutMs` passes) first. */
async function untilStatus(client: TaskClient, taskId: string, status: string, timeoutMs = 15_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await client.get(taskId);
    if (task['status'] === status) return task;
    if (['completed', 'failed', 'cancelled'].includes(task['status'])) assert.fail(`task ${taskId} ended ${task['status']} before turning ${status}: ${JSON.stringify(task)}`);
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task['status']} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An acknowledgement with nothing in it but the protocol's own fields. */
function assertEmptyAck(ack: Record<string, any>): void {
  assert.deepEqual(
    Object.keys(ack).filter((key) => key !== '_meta' && key !== 'resultType'),
    [],
    JSON.stringify(ack),
  );
  if (ack['resultType'] !== undefined) assert.equal(ack['resultType'], 'complete');
}

/** The mcp-tool-execute rounds the flow logged for one execution or task, in order. */
function roundsIn(output: string, match: { executionId?: string; taskId?: string; tool?: string }): Array<{ executionId: string; round: number; taskId: string; instance: string; answers: string }> {
  return [...output.matchAll(/task-execute (\S+) (\S+) round=(\d+) task=(\S+) instance=(\S+) answers=(\S+)/g)]
    .map((found) => ({ tool: found[1]!, executionId: found[2]!, round: Number(found[3]), taskId: found[4]!, instance: found[5]!, answers: found[6]! }))
    .filter((round) => (match.executionId === undefined || round.executionId === match.executionId) && (match.taskId === undefined || round.taskId === match.taskId) && (match.tool === undefined || round.tool === match.tool))
    .map(({ executionId, round, taskId, instance, answers }) => ({ executionId, round, taskId, instance, answers }));
}

const MODERN_HEADERS = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };

/** A raw 2026-07-28 tools/call (or its retry) from a client declaring the tasks extension and elicitation. */
function modernCall(url: string, name: string, extra: Record<string, unknown> = {}, id = 1): Promise<RawResponse> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } },
  };
  return rawRequest(url, {
    headers: { ...MODERN_HEADERS, 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta } }),
  });
}

describe(`tasks that ask the client, on one Node-RED (${nodeRedPackage})`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;

  before(async () => {
    ({ nodeRed, url } = await startServing(askFlows, '/tasks', { env: { MCP_TEST_INSTANCE: 'solo' } }));
  });
  after(() => nodeRed?.stop());

  /** The executionId of the task's first round, once the flow has logged it. */
  async function firstRoundOf(taskId: string, since: number): Promise<string> {
    await nodeRed.waitForOutput(new RegExp(`round=0 task=${taskId} `), since);
    const [first] = roundsIn(nodeRed.output().slice(since), { taskId });
    assert.ok(first);
    return first.executionId;
  }

  it('turns input_required with the questions, keeps partial answers, and resumes the flow when every key is answered', async () => {
    await withClient(TaskClient.connect(url, 'modern', { capabilities: CAN_ANSWER_ALL }), async (client) => {
      const since = nodeRed.output().length;
      const created = await client.call('task_ask', {});
      assert.equal(created['resultType'], 'task');
      assert.equal(created['inputRequests'], undefined, 'the flow has not asked yet when the task is created');
      const taskId = TaskClient.taskIdOf(created);
      const executionId = await firstRoundOf(taskId, since);

      const waiting = await untilStatus(client, taskId, 'input_required');
      assert.deepEqual(Object.keys(waiting['inputRequests']).sort(), ['city', 'summary']);
      assert.equal(waiting['inputRequests'].city.method, 'elicitation/create');
      assert.equal(waiting['inputRequests'].city.params.message, 'Which city?');
      assert.deepEqual(waiting['inputRequests'].city.params.requestedSchema, CITY_SCHEMA);
      assert.equal(waiting['inputRequests'].summary.method, 'sampling/createMessage');
      assert.deepEqual(waiting['inputRequests'].summary.params.messages, [{ role: 'user', content: { type: 'text', text: 'Describe the city' } }]);
      assert.equal(waiting['result'], undefined);

      // A partial answer, with an unknown key and a non-object value the task ignores.
      assertEmptyAck(await client.update(taskId, { city: OSLO, nobody_asked: { action: 'accept', content: {} }, summary: 'not an object' }));
      const partly = await client.get(taskId);
      assert.equal(partly['status'], 'input_required');
      assert.deepEqual(Object.keys(partly['inputRequests']), ['summary'], 'only what is still unanswered');
      assert.deepEqual(partly['inputRequests'].summary, waiting['inputRequests'].summary);
      assert.deepEqual(
        roundsIn(nodeRed.output().slice(since), { taskId }).map(({ round }) => round),
        [0],
        'a partial answer does not resume the flow',
      );

      // The rest; an answer to a key already answered is not taken again.
      assertEmptyAck(await client.update(taskId, { summary: SAMPLED, city: BERGEN }));
      const done = await client.untilDone(taskId);
      assert.equal(done['status'], 'completed', JSON.stringify(done));
      assert.equal(done['inputRequests'], undefined);
      const saw = flowSaw(done['result']);
      assert.equal(saw['text'], 'Oslo: A city by a fjord.', 'the result is built from both answers');
      assert.deepEqual(saw['inputResponses'], { city: OSLO, summary: SAMPLED });
      assert.equal(saw['inputRound'], 1);
      assert.equal(saw['inputError'], null);
      assert.deepEqual(saw['state'], { asked: 'task_ask', firstExecution: executionId });
      assert.equal(saw['taskId'], taskId);

      // Every round of a task keeps the task's executionId.
      assert.equal(saw['executionId'], executionId);
      assert.deepEqual(roundsIn(nodeRed.output().slice(since), { taskId }), [
        { executionId, round: 0, taskId, instance: 'solo', answers: 'none' },
        { executionId, round: 1, taskId, instance: 'solo', answers: 'city,summary' },
      ]);
      assertEmptyAck(await client.update(taskId, { city: BERGEN }));
      assert.equal((await client.get(taskId))['status'], 'completed', 'an answer to an ended task changes nothing');
    });
  });

  it('refuses a tasks/update whose answer does not fit its question (-32602 naming the key), keeps nothing of it, and takes the fixed one', async () => {
    await withClient(TaskClient.connect(url, 'modern', { capabilities: CAN_ANSWER_ALL }), async (client) => {
      const since = nodeRed.output().length;
      const taskId = TaskClient.taskIdOf(await client.call('task_ask', {}));
      await untilStatus(client, taskId, 'input_required');
      const cases: Array<[string, Record<string, unknown>]> = [
        ['city', { city: { action: 'bogus', content: { ok: 'yes', extra: '<img src=x onerror=alert(1)>' } }, summary: SAMPLED }],
        ['city', { city: { action: 'accept', content: { city: 'Oslo', extra: '<img>' } } }],
        ['summary', { city: OSLO, summary: { role: 'assistant', content: { type: 'text', text: 'x' } } }],
      ];
      for (const [key, responses] of cases) {
        await assert.rejects(client.update(taskId, responses), (error: Error & { code?: number }) => {
          assert.equal(error.code, -32602, error.message);
          assert.match(error.message, new RegExp(`Invalid inputResponses\\.${key}: `));
          return true;
        });
      }
      const waiting = await client.get(taskId);
      assert.equal(waiting['status'], 'input_required');
      assert.deepEqual(Object.keys(waiting['inputRequests']).sort(), ['city', 'summary'], 'nothing of the refused updates was kept');
      assertEmptyAck(await client.update(taskId, { city: OSLO, summary: SAMPLED }));
      const done = await client.untilDone(taskId);
      assert.deepEqual(flowSaw(done['result'])['inputResponses'], { city: OSLO, summary: SAMPLED });
      assert.deepEqual(
        roundsIn(nodeRed.output().slice(since), { taskId }).map(({ round }) => round),
        [0, 1],
      );
    });
  });

  it('tasks/cancel ends a task waiting for answers and tells the flow once, for the round that asked', async () => {
    await withClient(TaskClient.connect(url, 'modern', { capabilities: CAN_ANSWER_ALL }), async (client) => {
      const since = nodeRed.output().length;
      const taskId = TaskClient.taskIdOf(await client.call('task_ask', {}));
      const executionId = await firstRoundOf(taskId, since);
      await untilStatus(client, taskId, 'input_required');
      assertEmptyAck(await client.cancel(taskId));
      await nodeRed.waitForOutput(`task-cancel ${executionId} reason=cancelled`, since);
      const cancelled = await client.get(taskId);
      assert.equal(cancelled['status'], 'cancelled');
      assert.equal(cancelled['inputRequests'], undefined, 'a cancelled task asks nothing');
      // Answers that come after the cancel are acknowledged and never reach the flow.
      assertEmptyAck(await client.update(taskId, { city: OSLO, summary: SAMPLED }));
      assert.equal((await client.get(taskId))['status'], 'cancelled');
      assert.deepEqual(
        roundsIn(nodeRed.output().slice(since), { taskId }).map(({ round }) => round),
        [0],
      );
      assert.equal(nodeRed.output().slice(since).split(`task-cancel ${executionId} `).length - 1, 1, 'told once');
    });
  });

  it('fails a task nobody answers at the tool time limit and tells the flow (mcp-tool-cancel reason timeout)', async () => {
    await withClient(TaskClient.connect(url, 'modern', { capabilities: CAN_ANSWER_ALL }), async (client) => {
      const since = nodeRed.output().length;
      const taskId = TaskClient.taskIdOf(await client.call('task_slow', {}));
      const executionId = await firstRoundOf(taskId, since);
      const waiting = await untilStatus(client, taskId, 'input_required');
      assert.deepEqual(Object.keys(waiting['inputRequests']), ['city']);
      const done = await client.untilDone(taskId);
      assert.equal(done['status'], 'failed', JSON.stringify(done));
      assert.equal(done['error'].code, -32001);
      // The wording 2025-era calls use when the client's answers never come.
      assert.match(done['error'].message, /Tool "task_slow" asked the client a question that was not answered within 2 s/);
      assert.equal(done['result'], undefined);
      assert.equal(done['inputRequests'], undefined);
      await nodeRed.waitForOutput(`task-cancel ${executionId} reason=timeout`, since);
      assert.deepEqual(
        roundsIn(nodeRed.output().slice(since), { taskId }).map(({ round }) => round),
        [0],
      );
    });
  });

  it('asksBeforeTask: the first call asks as a plain call, and the retry with the answers starts the task', async () => {
    const since = nodeRed.output().length;
    const first = await modernCall(url, 'task_before');
    const asked = first.json().result;
    assert.equal(asked?.resultType, 'input_required', first.body);
    assert.equal(asked.taskId, undefined, 'no task yet');
    assert.deepEqual(Object.keys(asked.inputRequests), ['city']);
    assert.equal(asked.inputRequests.city.method, 'elicitation/create');
    assert.equal(typeof asked.requestState, 'string');
    await nodeRed.waitForOutput(/task-execute task_before \S+ round=0 task=undefined /, since);
    const [plain] = roundsIn(nodeRed.output().slice(since), { tool: 'task_before' });

    const retry = await modernCall(url, 'task_before', { inputResponses: { city: OSLO }, requestState: asked.requestState }, 2);
    const created = retry.json().result;
    assert.equal(created?.resultType, 'task', retry.body);
    assert.equal(created.status, 'working');
    assert.equal(created.requestState, undefined, 'a task needs no sealed state');
    assert.equal(created.inputRequests, undefined);
    const taskId = TaskClient.taskIdOf(created);

    await withClient(TaskClient.connect(url, 'modern', { capabilities: CAN_ANSWER_ALL }), async (client) => {
      const done = await client.untilDone(taskId);
      assert.equal(done['status'], 'completed', JSON.stringify(done));
      const saw = flowSaw(done['result']);
      assert.equal(saw['text'], 'Oslo: -');
      assert.deepEqual(saw['inputResponses'], { city: OSLO });
      assert.equal(saw['inputRound'], 1);
      assert.deepEqual(saw['state'], { asked: 'task_before', firstExecution: plain!.executionId });
      assert.equal(saw['taskId'], taskId);
      const rounds = roundsIn(nodeRed.output().slice(since), { tool: 'task_before' });
      assert.deepEqual(
        rounds.map(({ round, taskId: task }) => [round, task]),
        [
          [0, 'undefined'],
          [1, taskId],
        ],
        'the plain round, then the task round with the answers',
      );
      assert.notEqual(rounds[1]!.executionId, plain!.executionId, 'the task runs under an execution of its own');
      assert.equal(saw['executionId'], rounds[1]!.executionId);
    });
  });

  it('asksBeforeTask: answers sent unasked on the first call start no task; the call still asks first', async () => {
    const since = nodeRed.output().length;
    const first = await modernCall(url, 'task_before', { inputResponses: { city: OSLO } });
    const asked = first.json().result;
    assert.equal(asked?.resultType, 'input_required', first.body);
    assert.equal(asked.taskId, undefined, 'no task yet');
    await nodeRed.waitForOutput(/task-execute task_before \S+ round=0 task=undefined instance=solo answers=none/, since);
  });

  it('2025-11-25: a task cannot ask, so its flow gets inputError at once and answers without the answers', async () => {
    await withClient(TaskClient.connect(url, 'legacy'), async (client) => {
      const since = nodeRed.output().length;
      const created = await client.call('task_ask', {});
      const taskId = TaskClient.taskIdOf(created);
      const saw = flowSaw(await client.result(taskId));
      assert.equal(saw['inputResponses'], null);
      assert.equal(saw['inputRound'], 1);
      assert.equal(saw['inputError'].code, -32603);
      assert.deepEqual([...saw['inputError'].keys].sort(), ['city', 'summary']);
      assert.match(saw['inputError'].message, /2025-11-25 task, which cannot ask the client/);
      assert.deepEqual(saw['state'], { asked: 'task_ask', firstExecution: saw['executionId'] });
      assert.equal(saw['text'], '-: -');
      assert.equal((await client.get(taskId))['status'], 'completed');
      assert.deepEqual(
        roundsIn(nodeRed.output().slice(since), { taskId }).map(({ round, answers }) => [round, answers]),
        [
          [0, 'none'],
          [1, 'none'],
        ],
      );
    });
  });

  it('a task asking for a kind its tool does not declare gets inputError and completes without asking', async () => {
    await withClient(TaskClient.connect(url, 'modern', { capabilities: CAN_ANSWER_ALL }), async (client) => {
      const since = nodeRed.output().length;
      const { taskId, saw } = await completedWithoutAsking(client, 'task_undeclared', -32603);
      assert.match(saw['inputError'].message, /Tool "task_undeclared" does not declare that it asks for sampling/);
      assert.equal(saw['taskId'], taskId);
      assert.deepEqual(
        roundsIn(nodeRed.output().slice(since), { taskId }).map(({ executionId, round }) => [executionId, round]),
        [
          [saw['executionId'], 0],
          [saw['executionId'], 1],
        ],
        'the refusal came back as the next round of the same execution',
      );
    });
  });

  it('a task asking for a kind the client did not declare on its call gets inputError -32021', async () => {
    // Declares the tasks extension and elicitation, not sampling.
    await withClient(TaskClient.connect(url, 'modern', { capabilities: { elicitation: { form: {} } } }), async (client) => {
      const { saw } = await completedWithoutAsking(client, 'task_ask', -32021);
      assert.match(saw['inputError'].message, /sampling capability/);
    });
  });
});

describe(`tasks that ask, across two Node-RED instances on one redis-server (${nodeRedPackage})`, () => {
  const pair = twoNodeRedsOnRedis((port) => askFlows(port, { redis: true }), '/tasks');

  it('a task running on A shows input_required on B, and tasks/update sent to B resumes the flow on A', async () => {
    const onA = await TaskClient.connect(pair.firstUrl, 'modern', { capabilities: CAN_ANSWER_ALL });
    const onB = await TaskClient.connect(pair.secondUrl, 'modern', { capabilities: CAN_ANSWER_ALL });
    try {
      const sinceA = pair.first.output().length;
      const sinceB = pair.second.output().length;
      const taskId = TaskClient.taskIdOf(await onA.call('task_ask', {}));
      const waiting = await untilStatus(onB, taskId, 'input_required');
      assert.deepEqual(Object.keys(waiting['inputRequests']).sort(), ['city', 'summary']);
      assertEmptyAck(await onB.update(taskId, { city: BERGEN }));
      assert.deepEqual(Object.keys((await onA.get(taskId))['inputRequests']), ['summary'], 'A sees the answer B took');
      assertEmptyAck(await onB.update(taskId, { summary: SAMPLED }));
      const done = await onB.untilDone(taskId);
      assert.equal(done['status'], 'completed', JSON.stringify(done));
      const saw = flowSaw(done['result']);
      assert.equal(saw['instance'], 'A', 'the flow of the instance running the task got the answers');
      assert.equal(saw['text'], 'Bergen: A city by a fjord.');
      assert.deepEqual(saw['inputResponses'], { city: BERGEN, summary: SAMPLED });
      const rounds = roundsIn(pair.first.output().slice(sinceA), { taskId });
      assert.deepEqual(
        rounds.map(({ round, instance }) => [round, instance]),
        [
          [0, 'A'],
          [1, 'A'],
        ],
      );
      assert.equal(rounds[1]!.executionId, rounds[0]!.executionId);
      assert.deepEqual(roundsIn(pair.second.output().slice(sinceB), {}), [], 'B ran no flow');
    } finally {
      await onA.close();
      await onB.close();
    }
  });

  it('a cancel sent to B ends a task waiting on A, and A tells its flow', async () => {
    const onA = await TaskClient.connect(pair.firstUrl, 'modern', { capabilities: CAN_ANSWER_ALL });
    const onB = await TaskClient.connect(pair.secondUrl, 'modern', { capabilities: CAN_ANSWER_ALL });
    try {
      const since = pair.first.output().length;
      const taskId = TaskClient.taskIdOf(await onA.call('task_ask', {}));
      await untilStatus(onB, taskId, 'input_required');
      const [asking] = roundsIn(pair.first.output().slice(since), { taskId });
      assert.ok(asking, 'A ran the first round');
      assertEmptyAck(await onB.cancel(taskId));
      assert.equal((await onB.get(taskId))['status'], 'cancelled');
      await pair.first.waitForOutput(`task-cancel ${asking.executionId} reason=cancelled`, since);
      assert.equal((await onA.get(taskId))['status'], 'cancelled');
    } finally {
      await onA.close();
      await onB.close();
    }
  });
});
