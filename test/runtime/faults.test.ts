import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, router, runtime, tab, tool } from '../support/flows.js';
import { connect, postJsonRpc, waitForEndpoint, withClient } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { startServing } from '../support/serving.js';

const RESPOND = `msg.topic = 'mcp-tool-response';`;

/** Tools whose flows misbehave in the ways real flows do. */
function faultFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    flowServer('fs', { runtime: 'rt', path: '/faults', wires: ['route'] }),
    router('route', { throws: 'throw-fn', twice: 'twice-fn', huge: 'huge-fn', wait: 'wait-fn', later: 'later-fn' }),
    // A flow that throws: nothing answers, a Catch node reports it as the tool's error.
    answer('throw-fn', `throw new Error('the database is on fire');`, 'fs'),
    { id: 'catcher', type: 'catch', z: 'tab-tests', name: '', scope: ['throw-fn'], uncaught: false, x: 100, y: 400, wires: [['catch-answer']] },
    answer('catch-answer', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, error: msg.error.message };\nreturn msg;`, 'fs'),
    answer('twice-fn', `${RESPOND}\nconst id = msg.payload.executionId;\nnode.send({ topic: 'mcp-tool-response', payload: { executionId: id, result: 'first' } });\nreturn { topic: 'mcp-tool-response', payload: { executionId: id, result: 'second' } };`, 'fs'),
    answer('huge-fn', `${RESPOND}\nconst rows = Array.from({ length: 40000 }, (_, i) => ({ id: i, text: 'row '.repeat(10) }));\nmsg.payload = { executionId: msg.payload.executionId, result: { rows } };\nreturn msg;`, 'fs'),
    // Never answers; says in the log that a call reached it.
    answer('wait-fn', `node.warn('wait reached the flow: ' + msg.payload.executionId);\nreturn null;`, 'fs'),
    // Answers with its label after the delay the call asks for, so answers can overtake each other.
    answer('later-fn', `const { executionId, arguments: args } = msg.payload;\nsetTimeout(() => node.send({ topic: 'mcp-tool-response', payload: { executionId, result: args.label + ' #' + msg.mcp.requestId } }), args.delayMs);\nreturn null;`, 'fs'),
    tool('t-throws', { name: 'throws', endpoint: '/faults' }),
    tool('t-later', { name: 'later', endpoint: '/faults' }),
    tool('t-twice', { name: 'twice', endpoint: '/faults' }),
    tool('t-huge', { name: 'huge', endpoint: '/faults', output: { type: 'object', properties: { rows: { type: 'array' } }, required: ['rows'] } }),
    tool('t-wait', { name: 'wait', endpoint: '/faults' }),
  ];
}

describe(`misbehaving flows on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;
  const text = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0]!.text;

  before(async () => {
    ({ nodeRed, url } = await startServing(faultFlows, '/faults'));
  });
  after(() => nodeRed?.stop());

  it('turns a flow that throws (reported by a Catch node) into an error result', async () => {
    await withClient(connect(url, 'legacy'), async (client) => {
      const result = await client.callTool({ name: 'throws', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(text(result), /Tool "throws" failed: (Error: )?the database is on fire/);
    });
  });

  it('uses the first answer of a flow that answers twice and drops the second with a log line', async () => {
    const since = nodeRed.output().length;
    await withClient(connect(url, 'modern'), async (client) => {
      const result = await client.callTool({ name: 'twice', arguments: {} });
      assert.equal(text(result), 'first');
    });
    await nodeRed.waitForOutput(/Dropped a response for unknown or finished execution/, since);
  });

  it('shrinks an oversized result structurally, as whole JSON, with a note', async () => {
    const response = await postJsonRpc(url, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'huge', arguments: {} } });
    assert.equal(response.status, 200);
    const body = response.json();
    const result = body.result;
    assert.ok(response.body.length <= 1.1 * 1024 * 1024, `answer of ${response.body.length} bytes`);
    assert.ok(Array.isArray(result.structuredContent.rows) && result.structuredContent.rows.length < 40000);
    assert.equal(result.structuredContent.rows[0].id, 0);
    assert.match(result.content.at(-1).text, /has been shortened to fit the 1048576-byte limit/);
    assert.ok(result._meta['io.flowmcp/truncated'].originalBytes > 1024 * 1024);
  });

  it('answers concurrent 2025-era calls that reuse one request id each with its own result', async () => {
    // Every stateless client numbers its requests from the same start; the endpoint serves them all
    // from one shared server, so equal ids from different clients must never cross.
    const call = (label: string, delayMs: number) =>
      postJsonRpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'later', arguments: { label, delayMs } } });
    const calls = [call('slowest', 600), call('middle', 300), call('fastest', 20), call('also-fast', 20)];
    const bodies = (await Promise.all(calls)).map((response) => response.json());
    assert.deepEqual(
      bodies.map((body) => [body.id, text(body.result)]),
      [
        // The flow sees the id the client sent, not the number the shared server used internally.
        [1, 'slowest #1'],
        [1, 'middle #1'],
        [1, 'fastest #1'],
        [1, 'also-fast #1'],
      ],
    );
  });

  it('fails 20 pending calls clearly when the flows are redeployed with Full, then serves again', async () => {
    const since = nodeRed.output().length;
    const pending = Array.from({ length: 20 }, (_, i) =>
      postJsonRpc(url, { jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'wait', arguments: {} } }),
    );
    // All 20 are pending in the flow before the redeploy.
    await nodeRed.waitForMatches(/wait reached the flow: [0-9a-f]{32}/, 20, since);
    const flows = await nodeRed.getFlows();
    await nodeRed.deploy(flows, 'full');
    const answers = (await Promise.all(pending)).map((response) => response.json());
    assert.equal(answers.length, 20);
    for (const body of answers) {
      assert.equal(body.result?.isError, true, JSON.stringify(body));
      assert.match(body.result.content[0].text, /Tool "wait" was not answered: the endpoint was redeployed/);
    }
    assert.deepEqual(answers.map((body) => body.id).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => 100 + i));
    await waitForEndpoint(url);
    await withClient(connect(url, 'legacy'), async (client) => {
      assert.equal(text(await client.callTool({ name: 'twice', arguments: {} })), 'first');
    });
  });
});
