import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startPlantA, type PlantA } from '../support/edge-redis.js';
import { answer, flowServer, runtime, storage, tab, tool, topicSwitch } from '../support/flows.js';
import { withClient, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { TaskClient } from '../support/task-client.js';

/**
 * An edge flow that asks the client (`mcp-tool-input`), through a hub: one hub and one edge Node-RED
 * (site plant-a) on a real Redis with the ACL users of docs/edge-relay.md, and the official client on
 * the hub in both eras (2025: questions on the call's stream; 2026-07-28: input_required with a sealed
 * state, and tasks/update for a task). The hub asks and checks the answers; each round with answers
 * is a new call to the edge, whose flow gets them as a local flow does.
 */

/** Asks for a confirmation in round 0 (with its state), answers with what it got in round 1. */
const CONFIRMER = `const p = msg.payload;
node.warn('confirm-round ' + p.toolName + ' ' + (p.inputRound || 0) + ' answers=' + JSON.stringify(p.inputResponses || null));
if (!p.inputRound) {
  node.send({ topic: 'mcp-tool-input', payload: { executionId: p.executionId, state: { valve: p.arguments.valve }, requests: {
    confirm: { elicitation: { message: 'Open valve ' + p.arguments.valve + '?', requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } } },
  } } });
  return null;
}
const answer = p.inputResponses && p.inputResponses.confirm;
const yes = answer && answer.action === 'accept' && answer.content.confirm === true;
node.send({ topic: 'mcp-tool-response', payload: { executionId: p.executionId, result: {
  round: p.inputRound, state: p.state, opened: Boolean(yes), inputError: p.inputError || null, task: msg.mcp.taskId || null,
} } });
return null;`;

const VALVE_INPUT = { type: 'object', properties: { valve: { type: 'string' } }, required: ['valve'] };

function edgeFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    { ...flowServer('fs', { runtime: 'rt', path: '/edge', wires: ['by-topic'] }), storage: 'st', edgeSite: 'plant-a' },
    topicSwitch('by-topic', { 'mcp-tool-execute': 'confirm-fn' }),
    answer('confirm-fn', CONFIRMER, 'fs'),
    { ...tool('t-confirm', { name: 'open_valve', endpoint: '/edge', input: VALVE_INPUT, taskSupport: 'optional' }), asks: 'elicitation' },
    // The same flow, but the tool does not say it asks: the hub asks nothing and tells the flow so.
    tool('t-undeclared', { name: 'undeclared', endpoint: '/edge', input: VALVE_INPUT }),
  ];
}

/** The official client that answers forms with `content` (and counts the forms it was shown). */
async function formClient(url: string, era: Era, content: Record<string, unknown>): Promise<{ client: Client; shown: string[]; close: () => Promise<void> }> {
  const client = new Client({ name: 'edge-asking', version: '1.0.0' }, { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : 'auto' }, capabilities: { elicitation: { form: {} } } });
  const shown: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    shown.push((request.params as { message: string }).message);
    return { action: 'accept', content } as never;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, shown, close: () => client.close() };
}

const resultOf = (result: { content?: unknown; isError?: unknown }) => {
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
};

describe(`an edge flow asking the client through a hub, on ${nodeRedPackage}`, () => {
  let plant: PlantA;
  let edge: NodeRedProcess;
  let hubUrl: string;

  before(async () => {
    plant = await startPlantA(edgeFlows, 'plant-a.undeclared');
    ({ edge, hubUrl } = plant);
  });

  after(() => plant?.stop());

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`${era}: the hub asks the client what the edge flow asked, and the flow gets the answer and its state in a new round`, async () => {
      const since = edge.output().length;
      await withClient(formClient(hubUrl, era, { confirm: true }), async ({ client, shown }) => {
        const saw = resultOf(await client.callTool({ name: 'plant-a.open_valve', arguments: { valve: 'V2' } }));
        assert.deepEqual(shown, ['Open valve V2?']);
        assert.deepEqual(saw, { round: 1, state: { valve: 'V2' }, opened: true, inputError: null, task: null });
      });
      await edge.waitForOutput(/confirm-round open_valve 1 answers=\{"confirm":\{"action":"accept","content":\{"confirm":true\}\}\}/, since);
      assert.equal(edge.output().slice(since).match(/confirm-round open_valve 0/g)?.length, 1, 'round 0 ran once');
    });
  }

  it('modern: refuses an answer that does not fit the question on the hub (-32602), and the edge flow never sees it', async () => {
    const since = edge.output().length;
    await withClient(formClient(hubUrl, 'modern', { confirm: 'yes please' }), async ({ client }) => {
      await assert.rejects(client.callTool({ name: 'plant-a.open_valve', arguments: { valve: 'V3' } }), (error: Error & { code?: number }) => {
        assert.equal(error.code, -32602, error.message);
        return true;
      });
    });
    await edge.waitForOutput(/confirm-round open_valve 0/, since);
    assert.doesNotMatch(edge.output().slice(since), /confirm-round open_valve 1/);
  });

  it('tells the edge flow with inputError when its tool does not declare that it asks, and asks the client nothing', async () => {
    await withClient(formClient(hubUrl, 'modern', { confirm: true }), async ({ client, shown }) => {
      const saw = resultOf(await client.callTool({ name: 'plant-a.undeclared', arguments: { valve: 'V1' } }));
      assert.deepEqual(shown, []);
      assert.equal(saw.opened, false);
      assert.equal(saw.round, 1);
      assert.deepEqual(saw.inputError.keys, ['confirm']);
    });
  });

  it('2026-07-28: a task of the edge tool turns input_required on the hub, and tasks/update brings the answer to the edge flow', async () => {
    const client = await TaskClient.connect(hubUrl, 'modern', { capabilities: { elicitation: { form: {} } } });
    try {
      const taskId = TaskClient.taskIdOf(await client.call('plant-a.open_valve', { valve: 'V4' }));
      let task = await client.get(taskId);
      for (let attempt = 0; attempt < 100 && task['status'] !== 'input_required'; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        task = await client.get(taskId);
      }
      assert.equal(task['status'], 'input_required', JSON.stringify(task));
      const asked = task['inputRequests'] as Record<string, { method: string; params: { message: string } }>;
      assert.equal(asked['confirm']?.params.message, 'Open valve V4?');
      await client.update(taskId, { confirm: { action: 'accept', content: { confirm: true } } });
      const done = await client.untilDone(taskId);
      assert.equal(done['status'], 'completed', JSON.stringify(done));
      // The edge flow runs each round as a call: the task is the hub's.
      assert.deepEqual(JSON.parse(done['result'].content[0].text), { round: 1, state: { valve: 'V4' }, opened: true, inputError: null, task: null });
    } finally {
      await client.close();
    }
  });
});
