import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolError } from '@modelcontextprotocol/server';
import { silentLogger } from '../../lib/core/logger.js';
import type { ExecutionRequest } from '../../lib/execution/broker.js';
import type { EdgeRelay, ExecutionContext } from '../../lib/mcp/calls/call-types.js';
import { FlowCalls } from '../../lib/mcp/calls/flow-calls.js';
import { SERVER_BUSY } from '../../lib/mcp/json-rpc-codes.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';

// FlowCalls on its own: what is handed to the flow, and how answers, cancels, a site going away
// and a stop reach the pending work, whichever broker holds it.

const echo = parseToolConfig({ toolName: 'echo', endpoint: '/mcp', inputSchema: '{"type":"object"}' });

function contextOf(caller: string, requestId: number, relay?: ExecutionContext['relay']): ExecutionContext {
  return { endpoint: '/mcp', tool: 'echo', protocolVersion: '2025-11-25', requestId, subject: caller, ...(relay ? { relay } : {}) } as ExecutionContext;
}

function flowCalls(maxInFlight = 4, maxTasks?: number) {
  const executed: Array<{ request: ExecutionRequest; context: ExecutionContext }> = [];
  const abandoned: Array<[string, string]> = [];
  const calls = new FlowCalls({
    path: '/mcp',
    maxInFlight,
    ...(maxTasks !== undefined ? { maxTasks } : {}),
    logger: silentLogger,
    execute: (request, context) => executed.push({ request, context }),
    onAbandoned: (executionId, reason) => abandoned.push([executionId, reason]),
  });
  return { calls, executed, abandoned };
}

const never = new AbortController().signal;
const noFinish = () => undefined;

describe('FlowCalls', () => {
  it('hands a call to the flow and resolves it with the flow\'s answer', async () => {
    const { calls, executed } = flowCalls();
    const outcome = calls.begin(echo, { text: 'hi' }, contextOf('alice', 1), never, noFinish);
    assert.equal(executed.length, 1);
    assert.deepEqual(executed[0]!.request.arguments, { text: 'hi' });
    assert.equal(calls.settle(executed[0]!.request.executionId, { result: 'done' }), 'settled');
    assert.deepEqual(await outcome, { kind: 'answered', result: 'done' });
    assert.equal(calls.settle(executed[0]!.request.executionId, { result: 'again' }), 'unknown', 'a second answer finds nothing waiting');
  });

  it('reports busy and answers SERVER_BUSY when the cap is reached, without reaching the flow', async () => {
    const { calls, executed } = flowCalls(1);
    void calls.begin(echo, {}, contextOf('alice', 1), never, noFinish);
    const finished: string[] = [];
    await assert.rejects(
      calls.begin(echo, {}, contextOf('alice', 2), never, (_tool, outcome) => {
        finished.push(outcome);
        return undefined;
      }),
      (error: unknown) => error instanceof ProtocolError && error.code === SERVER_BUSY,
    );
    assert.deepEqual(finished, ['busy']);
    assert.equal(executed.length, 1);
    calls.stopAll('test over');
  });

  it('cancels only the call of the caller that sent the cancel, and nothing when the id is ambiguous', async () => {
    const { calls, executed, abandoned } = flowCalls();
    const alices = calls.begin(echo, {}, contextOf('alice', 1), never, noFinish);
    void calls.begin(echo, {}, contextOf('bob', 1), never, noFinish);
    calls.cancelFor({ subject: 'mallory' } as ExecutionContext, 1);
    assert.deepEqual(abandoned, [], 'another caller\'s cancel reaches nothing');
    calls.cancelFor({ subject: 'alice' } as ExecutionContext, 1);
    assert.deepEqual(await alices, { kind: 'cancelled', byClient: true });
    assert.deepEqual(abandoned, [[executed[0]!.request.executionId, 'cancelled']]);

    // Two pending calls of one caller under one request id: the cancel names neither for sure.
    void calls.begin(echo, {}, contextOf('carol', 5), never, noFinish);
    void calls.begin(echo, {}, contextOf('carol', 5), never, noFinish);
    calls.cancelFor({ subject: 'carol' } as ExecutionContext, 5);
    assert.equal(abandoned.length, 1);
    assert.equal(calls.stopAll('test over'), 3);
  });

  it('sends edge tools to the relay and ends a site\'s calls when it goes away, leaving other sites\' alone', async () => {
    const { calls, executed } = flowCalls();
    const sent: string[] = [];
    const relay: EdgeRelay = {
      send: (request, target) => sent.push(`${target.site}:${request.executionId}`),
      sendContent: (request, call) => sent.push(`${call.relay!.site}:${call.kind}:${request.executionId}`),
      withdraw: () => undefined,
      offline: () => undefined,
    };
    const unrelayed = await calls.begin(echo, {}, contextOf('alice', 1, { site: 'plant-a', tool: 'echo' }), never, noFinish);
    assert.equal(unrelayed.kind, 'answered');
    assert.match(String((unrelayed as { error?: unknown }).error), /relays to no edge sites/, 'an endpoint that is no hub ends an edge call with an error');
    calls.edges = relay;
    const a = calls.begin(echo, {}, contextOf('alice', 2, { site: 'plant-a', tool: 'echo' }), never, noFinish);
    const b = calls.begin(echo, {}, contextOf('alice', 3, { site: 'plant-b', tool: 'echo' }), never, noFinish);
    // A read of an edge resource goes to the relay too, and ends with an error (not a tool result) when its site goes away.
    const context = { endpoint: '/mcp', resource: 'plant://line-1/status', protocolVersion: '2025-11-25', requestId: 4 };
    const read = calls.beginContent({ kind: 'resource-read', uri: 'edge://plant-a/plant://line-1/status', variables: {}, context, relay: { site: 'plant-a', name: 'plant://line-1/status' } }, 10_000, never);
    assert.equal(executed.length, 0, 'nothing of an edge tool runs in this Node-RED');
    assert.equal(sent.length, 3);
    assert.match(sent[2]!, /^plant-a:resource-read:/);
    calls.failRelayed('plant-a', 'site plant-a went away');
    assert.deepEqual(await a, { kind: 'answered', result: { content: [{ type: 'text', text: 'site plant-a went away' }], isError: true } });
    assert.deepEqual(await read, { kind: 'answered', error: 'site plant-a went away' });
    assert.equal(calls.stopAll('test over'), 1);
    assert.equal((await b).kind, 'stopped');
  });

  it('finds a task\'s round on the task broker for answers, progress and cancels', async () => {
    const { calls, executed, abandoned } = flowCalls(4, 2);
    const task = calls.taskBroker!.begin({ toolName: 'echo', arguments: {}, timeoutMs: 10_000, signal: never, context: contextOf('alice', 1) });
    const id = executed[0]!.request.executionId;
    assert.equal(calls.progress(id, { progress: 1 }), 'kept_alive');
    assert.equal(calls.progress(id, { progress: 1 }), 'not_increasing');
    assert.equal(calls.log(id, { level: 'info', data: 'x' }), 'filtered');
    calls.cancel(id);
    assert.equal((await task).kind, 'cancelled');
    assert.deepEqual(abandoned, [[id, 'cancelled']]);
    assert.equal(calls.progress(id, { progress: 2 }), 'unknown');
  });

  it("runs a task of an edge tool on the relay: a cancel withdraws it there, and its site going away ends it", async () => {
    const { calls, executed, abandoned } = flowCalls(4, 2);
    const sent: string[] = [];
    const withdrawn: Array<[string, string]> = [];
    calls.edges = { send: (request, target) => sent.push(`${target.site}:${request.executionId}`), sendContent: () => undefined, withdraw: (id, reason) => withdrawn.push([id, reason]), offline: () => undefined };
    const begin = (requestId: number, site: string) =>
      calls.taskBroker!.begin({ toolName: 'echo', arguments: {}, timeoutMs: 10_000, signal: never, context: contextOf('alice', requestId, { site, tool: 'echo' }) });
    const cancelled = begin(1, 'plant-a');
    const failed = begin(2, 'plant-a');
    assert.equal(executed.length, 0, "an edge tool's task runs nothing in this Node-RED");
    assert.equal(sent.length, 2);
    const [cancelledId, failedId] = sent.map((entry) => entry.split(':')[1]!);
    calls.cancel(cancelledId);
    assert.equal((await cancelled).kind, 'cancelled');
    assert.deepEqual(withdrawn, [[cancelledId, 'cancelled']], 'the edge is told, not the flow of this Node-RED');
    assert.deepEqual(abandoned, []);
    calls.failRelayed('plant-a', 'site plant-a went away');
    assert.deepEqual(await failed, { kind: 'answered', result: { content: [{ type: 'text', text: 'site plant-a went away' }], isError: true } });
    assert.equal(failedId?.length, 32);
  });
});
