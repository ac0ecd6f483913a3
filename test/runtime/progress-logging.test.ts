import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOG_LEVEL_META_KEY, type Client } from '@modelcontextprotocol/client';
import { answer, flowServer, router, runtime, stopJobOnCancel, tab, tool, topicSwitch, TAB } from '../support/flows.js';
import { connect, postJsonRpc, withClient, type Era } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { CHATTY, JOB } from '../support/reporting-jobs.js';
import { startServing } from '../support/serving.js';

/** Every kind of bad report a flow can send, then a good answer. */
const MISBEHAVE = `const { executionId } = msg.payload;
node.send({ topic: 'mcp-tool-progress', payload: { progress: 1 } });
node.send({ topic: 'mcp-tool-progress', payload: { executionId: 'no-such-call', progress: 1 } });
node.send({ topic: 'mcp-tool-progress', payload: { executionId, progress: 5 } });
node.send({ topic: 'mcp-tool-progress', payload: { executionId, progress: 4 } });
node.send({ topic: 'mcp-tool-log', payload: { executionId, level: 'loud', data: 'x' } });
node.send({ topic: 'mcp-tool-log', payload: { executionId: 'no-such-call', level: 'error', data: 'x' } });
node.send({ topic: 'mcp-tool-response', payload: { executionId, result: 'survived' } });
return null;`;

function jobFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    flowServer('fs', { runtime: 'rt', path: '/jobs', wires: ['by-topic'] }),
    topicSwitch('by-topic', { 'mcp-tool-execute': 'route', 'mcp-tool-cancel': 'on-cancel' }),
    router('route', { job: 'job-fn', capped: 'job-fn', chatty: 'chatty-fn', misbehave: 'misbehave-fn' }),
    answer('job-fn', JOB, 'fs'),
    answer('on-cancel', stopJobOnCancel('clearInterval'), ''),
    answer('chatty-fn', CHATTY, 'fs'),
    answer('misbehave-fn', MISBEHAVE, 'fs'),
    // A 1 s time limit: only progress keeps a longer job alive.
    { ...tool('t-job', { name: 'job', endpoint: '/jobs', timeout: 1 }), maxDuration: '120' },
    { ...tool('t-capped', { name: 'capped', endpoint: '/jobs', timeout: 1 }), maxDuration: '2' },
    tool('t-chatty', { name: 'chatty', endpoint: '/jobs' }),
    tool('t-misbehave', { name: 'misbehave', endpoint: '/jobs' }),
    { id: 'metrics', type: 'mcp-server-metrics', z: TAB, name: '', runtime: 'rt', x: 100, y: 300, wires: [['telemetry-log']] },
    answer('telemetry-log', `node.warn('telemetry ' + msg.payload.tool + ' ' + msg.payload.status);\nreturn null;`, ''),
  ];
}

type Progress = { progress: number; total?: number; message?: string };

describe(`progress, logging and cancellation on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;

  before(async () => {
    ({ nodeRed, url } = await startServing(jobFlows, '/jobs'));
  });
  after(() => nodeRed?.stop());

  /** Collects the log lines a client receives, in order. */
  function collectLogs(client: Client): Array<{ level: string; data: unknown }> {
    const lines: Array<{ level: string; data: unknown }> = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      lines.push({ level: notification.params.level, data: notification.params.data });
    });
    return lines;
  }

  it('declares the logging capability in both eras', async () => {
    for (const era of ['legacy', 'modern'] as Era[]) {
      await withClient(connect(url, era), async (client) => {
        assert.ok(client.getServerCapabilities()?.logging, `${era}: logging capability`);
      });
    }
  });

  it('answers a plain call (no token, no level) as one JSON body, and tells the flow there is no token', async () => {
    const since = nodeRed.output().length;
    const response = await postJsonRpc(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'job', arguments: { steps: 1, intervalMs: 10 } } });
    assert.match(String(response.headers['content-type']), /application\/json/);
    assert.deepEqual(response.json().result.structuredContent ?? JSON.parse(response.json().result.content[0].text), { steps: 1, progressToken: false });
    await nodeRed.waitForOutput(/job-started \w+ token=false/, since);
  });

  for (const era of ['legacy', 'modern'] as Era[]) {
    describe(`${era} era`, () => {
      it('delivers progress in order before the result, and a job far longer than its 1 s limit succeeds because progress keeps it alive', async () => {
        await withClient(connect(url, era), async (client) => {
          const events: Array<Progress | 'result'> = [];
          // 15 steps 200 ms apart: three times the tool's time limit, and longer than the client's own timeout.
          const result = await client.callTool(
            { name: 'job', arguments: { steps: 15, intervalMs: 200 } },
            { onprogress: (progress: Progress) => events.push(progress), resetTimeoutOnProgress: true, timeout: 1_000, maxTotalTimeout: 60_000 },
          );
          events.push('result');
          assert.equal(result.isError, undefined, JSON.stringify(result));
          assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0]!.text), { steps: 15, progressToken: true });
          assert.deepEqual(
            events,
            [...Array.from({ length: 15 }, (_, index) => ({ progress: index + 1, total: 15, message: `step ${index + 1}` })), 'result'],
          );
        });
      });

      it('ends a job at its maximum total duration however much progress it reports, and tells the flow (timeout)', async () => {
        const since = nodeRed.output().length;
        await withClient(connect(url, era), async (client) => {
          const result = await client.callTool(
            { name: 'capped', arguments: { steps: 1000, intervalMs: 200 } },
            { onprogress: () => undefined, resetTimeoutOnProgress: true, maxTotalTimeout: 60_000 },
          );
          assert.equal(result.isError, true);
          assert.match((result.content as Array<{ text: string }>)[0]!.text, /did not finish within 2 s \(its maximum total duration\)/);
        });
        await nodeRed.waitForOutput(/job-cancelled \w+ reason=timeout stopped=true/, since);
        await nodeRed.waitForOutput(/telemetry capped timeout/, since);
      });

      it('a client cancel reaches the flow as one mcp-tool-cancel and counts as cancelled in telemetry', async () => {
        const since = nodeRed.output().length;
        await withClient(connect(url, era), async (client) => {
          const abort = new AbortController();
          let firstProgress!: () => void;
          const progressed = new Promise<void>((resolve) => (firstProgress = resolve));
          const call = client.callTool({ name: 'job', arguments: { steps: 1000, intervalMs: 200 } }, { onprogress: () => firstProgress(), signal: abort.signal });
          await progressed;
          abort.abort('the user changed their mind');
          await assert.rejects(call);
          // 2025 clients send notifications/cancelled; 2026-07-28 clients close the call's stream.
          const reason = era === 'legacy' ? 'cancelled' : 'disconnected';
          await nodeRed.waitForOutput(new RegExp(`job-cancelled \\w+ reason=${reason} stopped=true`), since);
          await nodeRed.waitForOutput(/telemetry job cancelled/, since);
        });
        const cancels = nodeRed.output().slice(since).match(/job-cancelled/g) ?? [];
        assert.equal(cancels.length, 1, 'exactly one mcp-tool-cancel');
      });
    });
  }

  it('legacy: sends no log lines to a caller that set no level, then only lines at or above the level it set', async () => {
    const client = await connect(url, 'legacy');
    try {
      const lines = collectLogs(client);
      await client.callTool({ name: 'chatty', arguments: {} });
      assert.equal(lines.length, 0, JSON.stringify(lines));
      assert.deepEqual(await client.setLoggingLevel('warning'), {});
      const result = await client.callTool({ name: 'chatty', arguments: {} });
      assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'said everything');
      assert.deepEqual(
        lines.map((line) => line.level),
        ['warning', 'error', 'critical', 'alert', 'emergency'],
      );
      assert.deepEqual(lines[0]!.data, { said: 'warning' });
      await assert.rejects(client.request({ method: 'logging/setLevel', params: { level: 'loud' } } as never), /level|Invalid/i);
    } finally {
      await client.setLoggingLevel('debug').catch(() => undefined);
      await client.close();
    }
  });

  it('modern: sends log lines at or above the level a request names in its _meta, and none without one', async () => {
    await withClient(connect(url, 'modern'), async (client) => {
      const lines = collectLogs(client);
      await client.callTool({ name: 'chatty', arguments: {} });
      assert.equal(lines.length, 0, JSON.stringify(lines));
      await client.callTool({ name: 'chatty', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'error' } });
      assert.deepEqual(
        lines.map((line) => line.level),
        ['error', 'critical', 'alert', 'emergency'],
      );
      await assert.rejects(client.callTool({ name: 'chatty', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'loud' } }), (error: Error & { code?: number }) => {
        assert.equal(error.code, -32602, error.message);
        return true;
      });
    });
  });

  it('drops bad reports from the flow with a clear log line each and still answers the call', async () => {
    const since = nodeRed.output().length;
    await withClient(connect(url, 'legacy'), async (client) => {
      const seen: number[] = [];
      const result = await client.callTool({ name: 'misbehave', arguments: {} }, { onprogress: (progress: Progress) => seen.push(progress.progress) });
      assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'survived');
      assert.deepEqual(seen, [5], 'only the increasing progress reached the client');
    });
    await nodeRed.waitForOutput(/mcp-tool-progress needs msg\.payload .*executionId is missing or invalid/, since);
    await nodeRed.waitForOutput(/Dropped a progress report for unknown or finished execution no-such-call/, since);
    await nodeRed.waitForOutput(/Dropped progress 4 for execution \w+: progress must increase/, since);
    await nodeRed.waitForOutput(/mcp-tool-log needs msg\.payload .*level is missing or invalid/, since);
    await nodeRed.waitForOutput(/Dropped a log line for unknown or finished execution no-such-call/, since);
  });
});
