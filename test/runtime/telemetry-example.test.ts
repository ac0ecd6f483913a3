// examples/telemetry.json deployed as a user imports it (only its runtime port moved, and its debug
// nodes also writing to the Node-RED log so the test can read what the debug sidebar would show):
// a tool call on its endpoint produces the InfluxDB line and the Prometheus text its notes describe.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { telemetryExampleFlow } from '../support/flows.js';
import { connect, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

const PROMETHEUS_INJECT = '7e2b4c9d1a3f600a';

describe(`the telemetry example on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url = '';

  before(async () => {
    const port = await freePort();
    const flows = telemetryExampleFlow(port).map((node) => (node.type === 'debug' ? { ...node, console: true } : node));
    nodeRed = await startNodeRed(flows);
    url = `http://127.0.0.1:${port}/telemetry`;
    await waitForEndpoint(url);
  });
  after(() => nodeRed?.stop());

  it('turns an echo call into an InfluxDB line and Prometheus counters', async () => {
    const since = nodeRed.output().length;
    const client = await connect(url, 'legacy');
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi there' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'hi there' }]);
    } finally {
      await client.close();
    }
    // measurement,tags fields nanosecond-timestamp; the caller is not signed in, the client is unknown.
    await nodeRed.waitForOutput(
      /mcp_tool_call,endpoint=\/telemetry,tool=echo,status=success,client=unknown durationMs=\d+(\.\d+)?,responseBytes=[1-9]\d*i \d{19}\b/,
      since,
    );

    // The example's "every 10 s" inject, pressed now through the editor's inject button route.
    const pressed = await fetch(`${nodeRed.adminUrl}/inject/${PROMETHEUS_INJECT}`, { method: 'POST' });
    assert.equal(pressed.status, 200);
    await nodeRed.waitForOutput('mcp_tool_calls_total{endpoint="/telemetry",tool="echo",status="success"} 1', since);
    await nodeRed.waitForOutput(/mcp_tool_duration_ms_sum\{endpoint="\/telemetry",tool="echo"\} \d+(\.\d+)?/, since);
    await nodeRed.waitForOutput('mcp_tool_duration_ms_count{endpoint="/telemetry",tool="echo"} 1', since);
    assert.doesNotMatch(nodeRed.output().slice(since), /\[(error|warn)\]/, 'the example logs no error or warning');
  });
});
