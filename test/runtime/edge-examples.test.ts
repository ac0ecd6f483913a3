// examples/edge-hub.json and examples/edge-site.json deployed as a user imports them (runtime ports
// moved, both in one Node-RED for the test) with a real Redis named by MCP_REDIS_URL: the hub serves
// its own tool and, relayed through Redis, the edge's open_valve, whose flow logs the hub endpoint
// the call came through, calibrate_line, a long job whose progress and log lines cross too, and the
// site's manual (a resource) and maintenance report prompt. Redis going away withdraws the edge tool while the hub's own tool keeps
// working, and its return brings the edge tool back. Without MCP_REDIS_URL the hub endpoint does not
// start and says why.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { exampleFlow } from '../support/flows.js';
import { connect, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';

const EDGE_TOOL = 'plant-a.open_valve';
const LONG_JOB = 'plant-a.calibrate_line';
const HUB_SERVER = '8e1d5a0c3b7f2a03';

/** Asks tools/list until `wanted` says yes; edges announce every 2 s and are forgotten after 6.5 s. */
async function untilTools(client: Client, wanted: (names: string[]) => boolean, what: string): Promise<string[]> {
  let names: string[] = [];
  for (let attempt = 0; attempt < 150; attempt += 1) {
    names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    if (wanted(names)) return names;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what}; the hub lists ${names.join(', ')}`);
}

describe(`the edge-hub and edge-site examples on ${nodeRedPackage}`, () => {
  let redis: RedisServer;
  let nodeRed: NodeRedProcess;
  let hubUrl = '';

  before(async () => {
    redis = await startRedis();
    const [hubPort, edgePort] = [await freePort(), await freePort()];
    nodeRed = await startNodeRed([...exampleFlow(hubPort, 'edge-hub.json'), ...exampleFlow(edgePort, 'edge-site.json')], { env: { MCP_REDIS_URL: redis.url } });
    hubUrl = `http://127.0.0.1:${hubPort}/plant`;
    await waitForEndpoint(hubUrl);
  });
  after(async () => {
    await nodeRed?.stop();
    await redis?.stop();
  });

  it('serves the edge tool on the hub next to its own; the hub asks the user to confirm, and the edge flow logs the hub endpoint', async () => {
    const client = new Client({ name: 'confirming', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { confirm: asked.length === 1 } } as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(hubUrl)));
    try {
      assert.deepEqual(await untilTools(client, (names) => names.includes(EDGE_TOOL), 'the edge tool never appeared'), [LONG_JOB, EDGE_TOOL, 'shift_note']);
      const since = nodeRed.output().length;
      const opened = await client.callTool({ name: EDGE_TOOL, arguments: { valve: 'V2', percent: 40 } });
      assert.deepEqual(opened.content, [{ type: 'text', text: 'Valve V2 of press line A is open at 40 %.' }]);
      assert.deepEqual(asked, ['Open valve V2 of press line A to 40 %?']);
      await nodeRed.waitForOutput('open_valve V2 to 40 % for a local client via hub endpoint /plant', since);
      // The second form is answered without the box ticked: nothing changes.
      const kept = await client.callTool({ name: EDGE_TOOL, arguments: { valve: 'V1', percent: 10 } });
      assert.equal(kept.isError, true);
      assert.deepEqual(kept.content, [{ type: 'text', text: 'Valve V1 was not changed: the user did not confirm.' }]);
      // Refused on the hub by the edge tool's own schema: the edge flow never runs.
      const refused = await client.callTool({ name: EDGE_TOOL, arguments: { valve: 'V9', percent: 40 } });
      assert.equal(refused.isError, true);
      const noted = await client.callTool({ name: 'shift_note', arguments: { note: 'press A warmed up' } });
      assert.deepEqual(noted.content, [{ type: 'text', text: 'Noted (1 this shift).' }]);
      assert.doesNotMatch(nodeRed.output().slice(since), /open_valve V9/);
      assert.doesNotMatch(nodeRed.output().slice(since), /\[(error|warn)\]/, 'the examples log no error or warning');
    } finally {
      await client.close();
    }
  });

  it("runs the edge's long job through the hub: its progress and log lines reach the client, and progress carries it past its 3 s limit", async () => {
    const client = await connect(hubUrl, 'modern');
    try {
      await untilTools(client, (names) => names.includes(LONG_JOB), 'the long job never appeared');
      const lines: unknown[] = [];
      client.setNotificationHandler('notifications/message', (notification) => void lines.push(notification.params.data));
      const progress: Array<{ progress: number; total?: number; message?: string }> = [];
      const since = nodeRed.output().length;
      const result = await client.callTool(
        { name: LONG_JOB, arguments: { sensors: 4 }, _meta: { [LOG_LEVEL_META_KEY]: 'info' } },
        { onprogress: (report) => void progress.push(report), resetTimeoutOnProgress: true },
      );
      assert.deepEqual(result.content, [{ type: 'text', text: 'All 4 sensors of press line A are calibrated.' }]);
      assert.deepEqual(progress, [1, 2, 3, 4].map((done) => ({ progress: done, total: 4, message: `Sensor ${done} of 4 calibrated` })));
      assert.deepEqual(lines.map((line: any) => line.sensor), [1, 2, 3, 4]);
      assert.doesNotMatch(nodeRed.output().slice(since), /\[(error|warn)\]/, 'the examples log no error or warning');
    } finally {
      await client.close();
    }
  });

  it("serves the edge's manual and its maintenance report prompt on the hub under the site's names", async () => {
    const client = await connect(hubUrl, 'modern');
    try {
      await untilTools(client, (names) => names.includes(EDGE_TOOL), 'the edge tool never appeared');
      const manual = await client.readResource({ uri: 'edge://plant-a/plant://press-line-a/manual' });
      assert.equal(manual.contents[0]!.mimeType, 'text/markdown');
      assert.match(String((manual.contents[0] as { text: string }).text), /^# Press line A/);
      const valves = await client.complete({ ref: { type: 'ref/prompt', name: 'plant-a.maintenance_report' }, argument: { name: 'valve', value: 'V' } });
      assert.deepEqual(valves.completion.values, ['V1', 'V2', 'V3']);
      const report = await client.getPrompt({ name: 'plant-a.maintenance_report', arguments: { valve: 'V2' } });
      assert.match(String((report.messages[0]!.content as { text: string }).text), /^Draft a maintenance report for valve V2 of press line A/);
    } finally {
      await client.close();
    }
  });

  it('withdraws the edge tool while Redis is away, keeps serving the hub\'s own tool, and relays again when Redis is back', async () => {
    const client = await connect(hubUrl, 'modern');
    try {
      await untilTools(client, (names) => names.includes(EDGE_TOOL), 'the edge tool was not listed');
      const since = nodeRed.output().length;
      await redis.stop();
      await nodeRed.waitForOutput('redis storage unreachable', since);
      assert.deepEqual(await untilTools(client, (names) => !names.includes(EDGE_TOOL), 'the edge tool stayed listed without Redis'), ['shift_note']);
      await nodeRed.waitForOutput(/site plant-a stopped answering .*withdrawn from \/plant/, since);
      const noted = await client.callTool({ name: 'shift_note', arguments: { note: 'Redis is down' } });
      assert.equal(noted.isError, undefined);

      await redis.restart();
      await untilTools(client, (names) => names.includes(EDGE_TOOL), 'the edge tool did not come back with Redis');
      // Relayed again, both rounds: this client shows no forms, so the edge flow leaves the valve alone.
      const refused = await client.callTool({ name: EDGE_TOOL, arguments: { valve: 'V1', percent: 0 } });
      assert.equal(refused.isError, true);
      assert.match((refused.content as Array<{ text: string }>)[0]!.text, /^Valve V1 was not changed: the client cannot ask the user \(The client did not declare the elicitation capability/);
    } finally {
      await client.close();
    }
  });
});

describe(`the edge-hub example without MCP_REDIS_URL on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  after(async () => nodeRed?.stop());

  it('does not start the hub endpoint and says its storage is not configured', async () => {
    nodeRed = await startNodeRed(exampleFlow(await freePort(), 'edge-hub.json'), { env: { MCP_REDIS_URL: '' } });
    const failed = /\[error\] \[mcp-flow-server:[^\]]*\] (.+)/;
    await nodeRed.waitForOutput(failed);
    const response = await fetch(`${nodeRed.adminUrl}/mcp-sidebar/endpoints`);
    const { endpoints } = (await response.json()) as { endpoints: Array<{ id: string; state: string; lastError?: { message: string } }> };
    const hub = endpoints.find((entry) => entry.id === HUB_SERVER);
    assert.equal(hub?.state, 'failed');
    assert.equal(hub?.lastError?.message, failed.exec(nodeRed.output())?.[1]);
    assert.match(hub?.lastError?.message ?? '', /storage/i);
  });
});
