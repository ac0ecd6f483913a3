import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, oidcAuth, router, runtime, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { request } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { JSON_HEADERS, postJsonRpc, rawRequest, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

const RESPOND = `msg.topic = 'mcp-tool-response';`;

/**
 * A runtime whose endpoints produce every kind of call outcome, a metrics node whose downstream is
 * deliberately slow (a rate-limited delay node), and a separate probe endpoint on another runtime
 * that reports what the downstream has received so far.
 */
function metricsFlows(port: number, probePort: number, adminPort: number): FlowNode[] {
  return [
    tab(),
    // get_flow is offered on /m; its admin API is a socket that never answers (see below).
    { ...runtimeWithBaseUrl('rt', port), adminPort: String(adminPort), adminPath: '/m' },
    flowServer('fs', { runtime: 'rt', path: '/m', maxConcurrent: 2, wires: ['route'] }),
    router('route', { ok: 'ok-fn', fails: 'fail-fn', slow: 'slow-fn', hang: 'hang-fn' }),
    // Never answers; says it was called, so the test hangs up only once the call reached the flow.
    answer('hang-fn', `global.set('hangSeen', (global.get('hangSeen') || 0) + 1);\nnode.warn('hang reached the flow');\nreturn null;`, ''),
    answer('ok-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'fine' };\nreturn msg;`, 'fs'),
    answer('fail-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, error: 'it broke' };\nreturn msg;`, 'fs'),
    // Holds each call until \`release\` on the probe endpoint answers them; says so in the log.
    answer('slow-fn', `const held = global.get('heldSlow') || [];\nheld.push(msg.payload.executionId);\nglobal.set('heldSlow', held);\nnode.warn('slow holding ' + msg.payload.executionId);\nreturn null;`, ''),
    tool('t-ok', { name: 'ok', endpoint: '/m' }),
    tool('t-fails', { name: 'fails', endpoint: '/m' }),
    tool('t-slow', { name: 'slow', endpoint: '/m' }),
    tool('t-hang', { name: 'hang', endpoint: '/m' }),
    tool('t-never', { name: 'never', endpoint: '/m', timeout: 1 }),
    tool('t-typed', { name: 'typed', endpoint: '/m', input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }),
    storage('store', 'memory'),
    oidcAuth('auth', { storage: 'store', issuer: 'http://127.0.0.1:9/', clientId: 'unused', secretEnv: 'MCP_UNUSED_SECRET' }),
    { ...flowServer('fs-oauth', { runtime: 'rt', path: '/signed' }), access: 'oauth', auth: 'auth', groups: 'staff' },
    { id: 'metrics', type: 'mcp-server-metrics', z: 'tab-tests', name: '', runtime: 'rt', x: 100, y: 300, wires: [['fast-collect', 'throttle']] },
    answer('fast-collect', `const seen = global.get('telemetry') || [];\nseen.push(msg.payload);\nglobal.set('telemetry', seen);\nnode.warn('telemetry received: ' + msg.payload.status);\nreturn null;`, ''),
    // The slow downstream: one message per 10 s, the rest queue inside the delay node.
    { id: 'throttle', type: 'delay', z: 'tab-tests', name: '', pauseType: 'rate', timeout: '5', timeoutUnits: 'seconds', rate: '1', nbRateUnits: '10', rateUnits: 'second', randomFirst: '1', randomLast: '5', randomUnits: 'seconds', drop: false, allowrate: false, outputs: 1, x: 300, y: 340, wires: [['slow-count']] },
    answer('slow-count', `global.set('slowSeen', (global.get('slowSeen') || 0) + 1);\nreturn null;`, ''),
    runtime('rt-probe', probePort),
    flowServer('fs-probe', { runtime: 'rt-probe', path: '/probe', wires: ['probe-route'] }),
    router('probe-route', { telemetry: 'probe-fn', release: 'release-fn' }),
    answer('probe-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: { events: global.get('telemetry') || [], slowSeen: global.get('slowSeen') || 0, hangSeen: global.get('hangSeen') || 0 } };\nreturn msg;`, 'fs-probe'),
    // Answers every call slow holds on /m (second output), then its own call.
    {
      ...answer('release-fn', `const held = global.get('heldSlow') || [];\nglobal.set('heldSlow', []);\nconst answers = held.map((executionId) => ({ topic: 'mcp-tool-response', payload: { executionId, result: 'late' } }));\nreturn [{ topic: 'mcp-tool-response', payload: { executionId: msg.payload.executionId, result: String(held.length) } }, answers];`, 'fs-probe'),
      outputs: 2,
      wires: [['fs-probe'], ['fs']],
    },
    tool('t-probe', { name: 'telemetry', endpoint: '/probe', output: { type: 'object' } }),
    tool('t-release', { name: 'release', endpoint: '/probe' }),
  ];
}

describe(`mcp-server-metrics on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;
  let probeUrl: string;
  // Stands in for a Node-RED admin API that never answers: get_flow's read waits on it, and each
  // connection it accepts tells the test that a get_flow call is under way.
  let silentAdmin: Server;
  const adminConnections: Socket[] = [];
  let adminConnected: () => void = () => {};

  const call = (name: string, args: object = {}, endpoint = url) =>
    postJsonRpc(endpoint, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const collected = async () => (await call('telemetry', {}, probeUrl)).json().result.structuredContent as { events: any[]; slowSeen: number; hangSeen: number };

  before(async () => {
    const port = await freePort();
    const probePort = await freePort();
    silentAdmin = createServer((socket) => {
      adminConnections.push(socket);
      adminConnected();
    });
    await new Promise<void>((resolve) => silentAdmin.listen(0, '127.0.0.1', resolve));
    const adminPort = (silentAdmin.address() as { port: number }).port;
    nodeRed = await startNodeRed(metricsFlows(port, probePort, adminPort), { env: { MCP_UNUSED_SECRET: 'unused', NODE_RED_ADMIN_API_TOKEN: 'unused-admin-token' } });
    url = `http://127.0.0.1:${port}/m`;
    probeUrl = `http://127.0.0.1:${probePort}/probe`;
    await waitForEndpoint(url);
    await waitForEndpoint(probeUrl);
    await waitForEndpoint(`http://127.0.0.1:${port}/signed`);
  });
  after(async () => {
    await nodeRed?.stop();
    for (const socket of adminConnections) socket.destroy();
    await new Promise((resolve) => silentAdmin?.close(resolve));
  });

  it('emits one typed message per tools/call, whatever the outcome', async () => {
    const since = nodeRed.output().length;
    await call('ok');
    await call('fails');
    await call('never');
    await call('typed', { n: 'x' });
    await call('no_such_tool');
    const signed = await call('ok', {}, url.replace('/m', '/signed'));
    assert.equal(signed.status, 401);
    // /m runs two calls at a time: with two held in the flow, a third is refused as busy.
    const held = [call('slow'), call('slow')];
    await nodeRed.waitForMatches(/slow holding [0-9a-f]{32}/, 2, since);
    assert.equal((await call('slow')).json().error?.code, -32000);
    assert.equal((await call('release', {}, probeUrl)).json().result.content[0].text, '2');
    for (const response of await Promise.all(held)) assert.equal(response.json().result?.content[0].text, 'late');

    // The metrics node's downstream says when it has every call's message.
    await nodeRed.waitForMatches(/telemetry received: \w+/, 9, since);
    const events = (await collected()).events;
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
      assert.deepEqual(Object.keys(event).sort(), ['cached', 'client', 'durationMs', 'endpoint', 'inputRounds', 'kind', 'mode', 'redisRole', 'redisSwitches', 'responseBytes', 'scannedNodes', 'site', 'status', 'tool', 'user']);
      assert.equal(event.kind, 'tool');
      assert.equal(typeof event.durationMs, 'number');
      assert.ok(event.durationMs >= 0 && event.durationMs < 60_000, `duration ${event.durationMs}`);
      assert.ok(Number.isInteger(event.responseBytes) && event.responseBytes >= 0);
      assert.equal(event.user, 'unknown');
      assert.equal(event.scannedNodes, 0);
      assert.equal(event.cached, false);
      assert.equal(event.inputRounds, 0, 'none of these flows asks the client');
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
    const sinceCall = nodeRed.output().length;
    await call('ok');
    await nodeRed.waitForOutput('telemetry received: success', sinceCall);
    assert.equal((await collected()).events.length, before + 1);
  });

  it('counts a Local-access refusal, a hung-up call with no response bytes, and a schema-refused get_flow under its mode', async () => {
    const before = (await collected()).events.length;
    const since = nodeRed.output().length;
    const toolCall = (name: string) => JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: {} } });

    // A web page's request (foreign Origin) is refused before it reaches any tool.
    const refused = await rawRequest(url, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25', origin: 'http://attacker.example' }, body: toolCall('ok') });
    assert.equal(refused.status, 403);

    // A valid mode with an argument the schema refuses, then a mode that does not exist.
    assert.equal((await call('get_flow', { mode: 'node', unexpected: true })).json().result?.isError, true);
    assert.equal((await call('get_flow', { mode: 'no_such_mode' })).json().result?.isError, true);

    // A client that hangs up once its call has reached the flow.
    const hungUp = request(url, { method: 'POST', headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' } });
    hungUp.on('error', () => {});
    hungUp.end(toolCall('hang'));
    await nodeRed.waitForOutput('hang reached the flow', since);
    assert.equal((await collected()).hangSeen, 1, 'the hang tool was called');
    hungUp.destroy();

    // Four calls, four messages downstream (the hung-up one last).
    await nodeRed.waitForMatches(/telemetry received: \w+/, 4, since);
    const events = (await collected()).events.slice(before);
    const forbidden = events.filter((event) => event.status === 'forbidden');
    assert.deepEqual(
      forbidden.map(({ endpoint, tool, mode, responseBytes }) => ({ endpoint, tool, mode, responseBytes })),
      [{ endpoint: '/m', tool: 'unknown', mode: 'unknown', responseBytes: 0 }],
    );
    const getFlow = events.filter((event) => event.tool === 'get_flow');
    assert.deepEqual(getFlow.map(({ status, mode }) => ({ status, mode })), [
      { status: 'invalid_arguments', mode: 'node' },
      { status: 'invalid_arguments', mode: 'unknown' },
    ]);
    const hang = events.filter((event) => event.tool === 'hang');
    assert.deepEqual(hang.map(({ status, responseBytes }) => ({ status, responseBytes })), [{ status: 'cancelled', responseBytes: 0 }]);
  });

  it('counts a get_flow call whose client hung up as cancelled, with no response bytes', async () => {
    const before = (await collected()).events.length;
    const since = nodeRed.output().length;
    const connected = new Promise<void>((resolve) => {
      adminConnected = resolve;
    });
    const hungUp = request(url, { method: 'POST', headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' } });
    hungUp.on('error', () => {});
    hungUp.end(JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'get_flow', arguments: { mode: 'subflows' } } }));
    // The call has reached get_flow once it reads the admin API; hang up then.
    await connected;
    hungUp.destroy();
    await nodeRed.waitForOutput('telemetry received: cancelled', since);
    const events = (await collected()).events.slice(before).filter((event) => event.tool === 'get_flow');
    assert.deepEqual(events.map(({ status, mode, responseBytes }) => ({ status, mode, responseBytes })), [{ status: 'cancelled', mode: 'subflows', responseBytes: 0 }]);
  });
});
