import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, oidcAuth, router, runtime, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { postJsonRpc, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

const RESPOND = `msg.topic = 'mcp-tool-response';`;

/**
 * A runtime whose endpoints produce every kind of call outcome, a metrics node whose downstream is
 * deliberately slow (a rate-limited delay node), and a separate probe endpoint on another runtime
 * that reports what the downstream has received so far.
 */
function metricsFlows(port: number, probePort: number): FlowNode[] {
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    flowServer('fs', { runtime: 'rt', path: '/m', maxConcurrent: 2, wires: ['route'] }),
    router('route', { ok: 'ok-fn', fails: 'fail-fn', slow: 'slow-fn' }),
    answer('ok-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'fine' };\nreturn msg;`, 'fs'),
    answer('fail-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, error: 'it broke' };\nreturn msg;`, 'fs'),
    answer('slow-fn', `const id = msg.payload.executionId;\nsetTimeout(() => node.send({ topic: 'mcp-tool-response', payload: { executionId: id, result: 'late' } }), 500);\nreturn null;`, 'fs'),
    tool('t-ok', { name: 'ok', endpoint: '/m' }),
    tool('t-fails', { name: 'fails', endpoint: '/m' }),
    tool('t-slow', { name: 'slow', endpoint: '/m' }),
    tool('t-never', { name: 'never', endpoint: '/m', timeout: 1 }),
    tool('t-typed', { name: 'typed', endpoint: '/m', input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }),
    storage('store', 'memory'),
    oidcAuth('auth', { storage: 'store', issuer: 'http://127.0.0.1:9/', clientId: 'unused', secretEnv: 'MCP_UNUSED_SECRET' }),
    { ...flowServer('fs-oauth', { runtime: 'rt', path: '/signed' }), access: 'oauth', auth: 'auth', groups: 'staff' },
    { id: 'metrics', type: 'mcp-server-metrics', z: 'tab-tests', name: '', runtime: 'rt', x: 100, y: 300, wires: [['fast-collect', 'throttle']] },
    answer('fast-collect', `const seen = global.get('telemetry') || [];\nseen.push(msg.payload);\nglobal.set('telemetry', seen);\nreturn null;`, ''),
    // The slow downstream: one message per 10 s, the rest queue inside the delay node.
    { id: 'throttle', type: 'delay', z: 'tab-tests', name: '', pauseType: 'rate', timeout: '5', timeoutUnits: 'seconds', rate: '1', nbRateUnits: '10', rateUnits: 'second', randomFirst: '1', randomLast: '5', randomUnits: 'seconds', drop: false, allowrate: false, outputs: 1, x: 300, y: 340, wires: [['slow-count']] },
    answer('slow-count', `global.set('slowSeen', (global.get('slowSeen') || 0) + 1);\nreturn null;`, ''),
    runtime('rt-probe', probePort),
    flowServer('fs-probe', { runtime: 'rt-probe', path: '/probe', wires: ['probe-fn'] }),
    answer('probe-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: { events: global.get('telemetry') || [], slowSeen: global.get('slowSeen') || 0 } };\nreturn msg;`, 'fs-probe'),
    tool('t-probe', { name: 'telemetry', endpoint: '/probe', output: { type: 'object' } }),
  ];
}

describe(`mcp-server-metrics on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;
  let probeUrl: string;

  const call = (name: string, args: object = {}, endpoint = url) =>
    postJsonRpc(endpoint, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const collected = async () => (await call('telemetry', {}, probeUrl)).json().result.structuredContent as { events: any[]; slowSeen: number };

  before(async () => {
    const port = await freePort();
    const probePort = await freePort();
    nodeRed = await startNodeRed(metricsFlows(port, probePort), { env: { MCP_UNUSED_SECRET: 'unused' } });
    url = `http://127.0.0.1:${port}/m`;
    probeUrl = `http://127.0.0.1:${probePort}/probe`;
    await waitForEndpoint(url);
    await waitForEndpoint(probeUrl);
    await waitForEndpoint(`http://127.0.0.1:${port}/signed`);
  });
  after(() => nodeRed?.stop());

  it('emits one typed message per tools/call, whatever the outcome', async () => {
    await call('ok');
    await call('fails');
    await call('never');
    await call('typed', { n: 'x' });
    await call('no_such_tool');
    const signed = await call('ok', {}, url.replace('/m', '/signed'));
    assert.equal(signed.status, 401);
    const busy = await Promise.all([call('slow'), call('slow'), call('slow')]);
    assert.equal(busy.filter((response) => response.json().error?.code === -32000).length, 1);

    let events: any[] = [];
    for (let attempt = 0; attempt < 50 && events.length < 9; attempt += 1) {
      events = (await collected()).events;
      if (events.length < 9) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const byStatus = (status: string) => events.filter((event) => event.status === status);
    assert.equal(events.length, 9, JSON.stringify(events));
    assert.deepEqual(byStatus('success').map((e) => e.tool).sort(), ['ok', 'slow', 'slow']);
    assert.deepEqual(byStatus('error').map((e) => e.tool), ['fails']);
    assert.deepEqual(byStatus('timeout').map((e) => e.tool), ['never']);
    assert.deepEqual(byStatus('invalid_arguments').map((e) => e.tool), ['typed']);
    assert.deepEqual(byStatus('unknown_tool').map((e) => e.tool), ['unknown']);
    assert.deepEqual(byStatus('unauthenticated').map((e) => [e.tool, e.endpoint]), [['unknown', '/signed']]);
    assert.deepEqual(byStatus('busy').map((e) => e.tool), ['slow']);
    // Flow tools are `flow`, whatever their outcome; a call that reached no tool is `unknown`.
    assert.deepEqual(events.filter((e) => e.mode === 'unknown').map((e) => e.status).sort(), ['unauthenticated', 'unknown_tool']);
    assert.ok(events.filter((e) => e.tool !== 'unknown').every((e) => e.mode === 'flow'));
    for (const event of events) {
      assert.deepEqual(Object.keys(event).sort(), ['cached', 'client', 'durationMs', 'endpoint', 'mode', 'responseBytes', 'scannedNodes', 'status', 'tool', 'user']);
      assert.equal(typeof event.durationMs, 'number');
      assert.ok(event.durationMs >= 0 && event.durationMs < 60_000, `duration ${event.durationMs}`);
      assert.ok(Number.isInteger(event.responseBytes) && event.responseBytes >= 0);
      assert.equal(event.user, 'unknown');
      assert.equal(event.scannedNodes, 0);
      assert.equal(event.cached, false);
    }
    const never = byStatus('timeout')[0];
    assert.ok(never.durationMs >= 1000, 'a timed-out call lasts at least its limit');
    assert.ok(byStatus('success').every((event) => event.responseBytes > 0));
  });

  it('keeps answering tool calls while the metrics downstream is stuck behind a slow node', async () => {
    const before = (await collected()).slowSeen;
    // One after another: /m runs two calls at a time, and this is about telemetry, not the cap.
    for (let i = 0; i < 30; i += 1) assert.equal((await call('ok')).json().result?.content[0].text, 'fine');
    const after = await collected();
    // Every call was answered above while the slow branch held its messages; the fast branch saw them all.
    assert.ok(after.slowSeen - before < 30, `the slow branch is still behind (saw ${after.slowSeen - before} of 30)`);
    assert.ok(after.events.length >= 39);
  });

  it('refuses a second metrics node on the same runtime', async () => {
    const since = nodeRed.output().length;
    const flows = await nodeRed.getFlows();
    await nodeRed.deploy([...flows, { id: 'metrics-2', type: 'mcp-server-metrics', z: 'tab-tests', name: '', runtime: 'rt', x: 100, y: 400, wires: [[]] }], 'nodes');
    await nodeRed.waitForOutput(/\[error\] \[mcp-server-metrics:metrics-2\] Another mcp metrics node already listens on this runtime/, since);
    // The first node still receives every call.
    const before = (await collected()).events.length;
    await call('ok');
    for (let attempt = 0; attempt < 50 && (await collected()).events.length === before; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await collected()).events.length, before + 1);
  });
});
