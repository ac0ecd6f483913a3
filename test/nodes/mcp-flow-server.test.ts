import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import {
  callTool,
  flowOf,
  flowServerDef,
  freePort,
  helper,
  helperDef,
  lastStatus,
  usePalette,
  PALETTE_TYPES,
  messagesOf,
  probeEndpoint,
  rpc,
  runtimeDef,
  statuses,
  toolDef,
  waitFor,
  waitForStatus,
  TAB_ID,
  type TestNode,
} from './node-helper.js';

interface ExecuteMessage {
  topic: string;
  payload: { toolName: string; arguments: Record<string, unknown>; executionId: string };
  mcp: Record<string, unknown>;
}

/** Everything the flow-server sent to the helper node wired to its output. */
function record(node: TestNode): ExecuteMessage[] {
  const received: ExecuteMessage[] = [];
  node.on('input', (msg) => received.push(msg as ExecuteMessage));
  return received;
}

function textOf(body: any): string {
  return (body?.result?.content ?? []).map((item: { text?: string }) => item.text ?? '').join('\n');
}

describe('mcp-flow-server', () => {
  const nodes = usePalette([...PALETTE_TYPES, 'mcp-server-metrics']);

  /**
   * `ids` failed without serving `paths`: shown after a sibling endpoint on the same runtime (id
   * `sibling`) serves, since every endpoint of a deploy starts on the same flows:started event.
   */
  async function expectNeverStarted(port: number, ids: string[], ...paths: string[]) {
    await waitForStatus(helper.getNode('sibling'), 'green');
    for (const id of ids) assert.equal(lastStatus(helper.getNode(id))?.fill, 'red', `${id} never starts`);
    for (const path of paths) assert.equal(await probeEndpoint(port, path), 404, `${path} is not served`);
    assert.equal(await probeEndpoint(port, '/sibling'), 200);
  }

  /** runtime + one endpoint on /mcp wired to a helper node + the tools given. */
  async function serve(port: number, tools: object[] = [toolDef('tool', 'echo')], serverExtra: Record<string, unknown> = {}) {
    await helper.load(nodes, flowOf(runtimeDef('rt', port), flowServerDef('srv', 'rt', [['out']], serverExtra), helperDef('out'), ...tools));
    const server = helper.getNode('srv');
    const out = helper.getNode('out');
    const received = record(out);
    await waitForStatus(server, 'green');
    return { server, out, received };
  }

  it('serves its tools after deploy: tools/list over HTTP and a green status', async () => {
    const port = await freePort();
    const { server } = await serve(port, [
      toolDef('t1', 'echo', { title: 'Echo' }),
      toolDef('t2', 'everywhere', { endpoint: '*' }),
      toolDef('t3', 'elsewhere', { endpoint: '/other' }),
    ]);
    assert.deepEqual(lastStatus(server), { fill: 'green', shape: 'dot', text: `2 tools on http://127.0.0.1:${port}/mcp` });
    assert.deepEqual(statuses(server)[0], { fill: 'yellow', shape: 'ring', text: 'starting' });

    const listed = await rpc(port, 'tools/list');
    assert.equal(listed.status, 200);
    const tools = listed.body.result.tools as Array<Record<string, any>>;
    assert.deepEqual(tools.map((tool) => tool.name), ['echo', 'everywhere']);
    const echo = tools[0]!;
    assert.equal(echo.title, 'Echo');
    assert.equal(echo.description, 'echo for tests');
    assert.deepEqual(echo.inputSchema, JSON.parse(toolDef('x', 'x').inputSchema));
    assert.deepEqual(echo.annotations, { title: 'Echo', readOnlyHint: true, openWorldHint: false });
  });

  it('round trip: tools/call reaches the flow as mcp-tool-execute and the flow answer goes back', async () => {
    const port = await freePort();
    const { server, received } = await serve(port);

    const pending = callTool(port, 'echo', { text: 'hello' }, 7);
    const [msg] = await waitFor(() => received.length === 1 && received, 'the mcp-tool-execute message');
    assert.equal(msg!.topic, 'mcp-tool-execute');
    const { executionId } = msg!.payload;
    assert.equal(typeof executionId, 'string');
    assert.ok(executionId.length > 0);
    assert.deepEqual(msg!.payload, { toolName: 'echo', arguments: { text: 'hello' }, executionId, progressToken: false });
    assert.deepEqual(msg!.mcp, { endpoint: '/mcp', tool: 'echo', protocolVersion: '2025-11-25', requestId: 7 });

    server.receive({ topic: 'mcp-tool-response', payload: { executionId, result: 'hi' } });
    const response = await pending;
    assert.equal(response.status, 200);
    assert.equal(response.body.id, 7);
    assert.deepEqual(response.body.result.content, [{ type: 'text', text: 'hi' }]);
    assert.notEqual(response.body.result.isError, true);
    assert.deepEqual(messagesOf(server, 'error'), []);
    assert.deepEqual(messagesOf(server, 'warn'), []);
  });

  it('turns a flow error into an isError result', async () => {
    const port = await freePort();
    const { server, received } = await serve(port);
    const pending = callTool(port, 'echo', { text: 'x' });
    const [msg] = await waitFor(() => received.length === 1 && received, 'the mcp-tool-execute message');
    server.receive({ topic: 'mcp-tool-response', payload: { executionId: msg!.payload.executionId, error: 'the database is down' } });
    const response = await pending;
    assert.equal(response.body.result.isError, true);
    assert.equal(textOf(response.body), 'Tool "echo" failed: the database is down');
  });

  it('answers invalid arguments itself with an isError result naming the argument, an unknown tool with -32602; the flow sees neither', async () => {
    const port = await freePort();
    const { server, received } = await serve(port);

    const wrongType = await callTool(port, 'echo', { text: 42 });
    assert.equal(wrongType.status, 200);
    assert.equal(wrongType.body.result.isError, true);
    assert.match(textOf(wrongType.body), /Invalid arguments for tool "echo"/);
    assert.match(textOf(wrongType.body), /- text: /);

    const missing = await callTool(port, 'echo', {});
    assert.equal(missing.body.result.isError, true);
    assert.match(textOf(missing.body), /- text: is required/);

    // An unknown tool is a protocol fault (JSON-RPC -32602), not a tool failure.
    const unknown = await callTool(port, 'nope', {});
    assert.equal(unknown.body.result, undefined);
    assert.equal(unknown.body.error.code, -32602);
    assert.match(unknown.body.error.message, /Unknown tool "nope"/);

    // A valid call after them is the first message the flow gets: none of the refused ones came before it.
    const marker = callTool(port, 'echo', { text: 'marker' });
    await waitFor(() => received.length > 0, 'the valid call to reach the flow');
    assert.deepEqual(received.map((msg) => msg.payload.arguments), [{ text: 'marker' }]);
    server.receive({ topic: 'mcp-tool-response', payload: { executionId: received[0]!.payload.executionId, result: 'ok' } });
    assert.equal(textOf((await marker).body), 'ok');
  });

  it('stop, start and restart commands take the endpoint down and bring it back', async () => {
    const port = await freePort();
    const { server } = await serve(port);

    let seen = statuses(server).length;
    server.receive({ topic: 'stop' });
    assert.deepEqual(await waitForStatus(server, 'grey', seen), { fill: 'grey', shape: 'ring', text: 'stopped' });
    const stopped = await probeEndpoint(port);
    assert.ok(stopped === 'refused' || stopped === 404, `a stopped endpoint is not served (got ${stopped})`);

    seen = statuses(server).length;
    server.receive({ topic: 'start' });
    await waitForStatus(server, 'green', seen);
    assert.equal(lastStatus(server)?.fill, 'green');
    assert.equal((await rpc(port, 'tools/list')).body.result.tools.length, 1);

    seen = statuses(server).length;
    server.receive({ topic: 'restart' });
    await waitForStatus(server, 'green', seen);
    assert.deepEqual(
      statuses(server).slice(seen).map((status) => status.fill),
      ['grey', 'yellow', 'green'],
      'restart stops, then starts',
    );
    assert.equal((await rpc(port, 'tools/list')).body.result.tools.length, 1);
    assert.deepEqual(messagesOf(server, 'error'), []);
  });

  it('a stop command ends a pending call with an isError result', async () => {
    const port = await freePort();
    const { server, received } = await serve(port);
    const pending = callTool(port, 'echo', { text: 'x' });
    await waitFor(() => received.length === 1, 'the mcp-tool-execute message');
    server.receive({ topic: 'stop' });
    const response = await pending;
    assert.equal(response.body.result.isError, true);
    assert.match(textOf(response.body), /stopped by a stop command/);
    await waitFor(() => lastStatus(server)?.fill === 'grey', 'the grey status');
    const [cancel] = await waitFor(() => received.length === 2 && received.slice(1), 'the mcp-tool-cancel message');
    assert.equal(cancel!.topic, 'mcp-tool-cancel');
    assert.deepEqual(cancel!.payload, { executionId: received[0]!.payload.executionId, reason: 'stopped' });
    assert.equal(cancel!.mcp.tool, 'echo');
  });

  it('an unknown command topic fails the message: node.error and a Catch node fire', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('srv', 'rt', [['out']]),
      helperDef('out'),
      { id: 'catcher', type: 'catch', z: TAB_ID, x: 200, y: 400, scope: ['srv'], uncaught: false, wires: [['caught']] },
      helperDef('caught'),
      toolDef('tool', 'echo'),
    ));
    const server = helper.getNode('srv');
    await waitForStatus(server, 'green');
    const caught = record(helper.getNode('caught'));

    server.receive({ topic: 'bogus' });
    const [error] = await waitFor(() => messagesOf(server, 'error').length > 0 && messagesOf(server, 'error'), 'node.error');
    assert.equal(error, 'Unknown command topic "bogus": expected mcp-tool-response, mcp-tool-progress, mcp-tool-log, mcp-tool-input, mcp-resource-response, mcp-prompt-response, mcp-completion-response, mcp-resource-updated, start, stop or restart');
    const [catchMsg] = await waitFor(() => caught.length > 0 && caught, 'the Catch node');
    assert.match(String((catchMsg as unknown as { error: { message: string } }).error.message), /Unknown command topic "bogus"/);
    assert.equal(lastStatus(server)?.fill, 'green', 'a bad message does not stop the endpoint');
  });

  it('a response for an unknown executionId is dropped with a warning', async () => {
    const port = await freePort();
    const { server } = await serve(port);
    assert.doesNotThrow(() => server.receive({ topic: 'mcp-tool-response', payload: { executionId: 'no-such-call', result: 'late' } }));
    const [warning] = await waitFor(() => messagesOf(server, 'warn').length > 0 && messagesOf(server, 'warn'), 'node.warn');
    assert.match(warning!, /Dropped a response for unknown or finished execution no-such-call/);
    assert.deepEqual(messagesOf(server, 'error'), []);
    assert.equal((await rpc(port, 'tools/list')).status, 200, 'still serving');
  });

  it('late responses from many hung-up calls make one warning (the rest are counted into one line per minute)', async () => {
    const port = await freePort();
    const { server } = await serve(port);
    for (let i = 0; i < 50; i += 1) server.receive({ topic: 'mcp-tool-response', payload: { executionId: `gone-${i}`, result: 'late' } });
    // Input is handled in order: once this one's error shows, all 50 late answers have been handled.
    server.receive({ topic: 'mcp-tool-response', payload: { result: 'orphan' } });
    await waitFor(() => messagesOf(server, 'error').length > 0, 'node.error');
    assert.deepEqual(messagesOf(server, 'warn'), [
      'Dropped a response for unknown or finished execution gone-0 (it timed out, was answered already, or the endpoint restarted)',
    ]);
  });

  it('a response without executionId is an error', async () => {
    const port = await freePort();
    const { server } = await serve(port);
    server.receive({ topic: 'mcp-tool-response', payload: { result: 'orphan' } });
    const [error] = await waitFor(() => messagesOf(server, 'error').length > 0 && messagesOf(server, 'error'), 'node.error');
    assert.equal(error, 'mcp-tool-response needs msg.payload.executionId');
    assert.deepEqual(messagesOf(server, 'warn'), []);
  });

  it('does not serve access "oauth" it cannot enforce (no sign-in configured): red status, nothing served', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('srv', 'rt', [[]], { access: 'oauth' }),
      toolDef('tool', 'echo'),
      flowServerDef('sibling', 'rt', [[]], { path: '/sibling' }),
    ));
    const server = helper.getNode('srv');
    const status = await waitForStatus(server, 'red');
    assert.equal(status.shape, 'ring');
    assert.ok(status.text && status.text.length > 0, 'the status says why');
    assert.doesNotMatch(status.text, /^mcp-flow-server\./, `a sentence from the catalog, not a bare key: ${status.text}`);
    assert.ok(messagesOf(server, 'error').includes(status.text), 'the log says what the status says');
    await expectNeverStarted(port, ['srv'], '/mcp');
  });

  it('does not start an endpoint whose edge relaying has no storage to relay through, and says so', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('edge', 'rt', [[]], { path: '/edge', edgeSite: 'plant-a' }),
      flowServerDef('hub', 'rt', [[]], { path: '/hub', hubSites: 'plant-a' }),
      toolDef('tool', 'echo'),
    ));
    for (const id of ['edge', 'hub']) {
      const status = await waitForStatus(helper.getNode(id), 'red');
      assert.equal(status.text, 'Edge relaying needs a Storage in Redis mode: choose one above', id);
    }
    assert.equal(await probeEndpoint(port, '/edge'), 'refused');
  });

  it('does not start a Local endpoint that would serve an item limited to groups: red status naming the item, nothing served', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('srv', 'rt'),
      toolDef('open', 'echo'),
      toolDef('limited', 'set_point', { allowedGroups: 'maintenance' }),
      // On another path: this endpoint serves nothing limited and starts.
      flowServerDef('other', 'rt', [[]], { path: '/other' }),
    ));
    const status = await waitForStatus(helper.getNode('srv'), 'red');
    assert.equal(status.text, 'tool set_point has Allowed groups, which need OAuth sign-in: a Local endpoint knows no groups and does not start. Clear the groups or switch this endpoint to OAuth');
    assert.ok(messagesOf(helper.getNode('srv'), 'error').includes(status.text), 'the log says what the status says');
    await waitForStatus(helper.getNode('other'), 'green');
    assert.equal(await probeEndpoint(port, '/mcp'), 404);
  });

  it('does not start Local access on a runtime bound to 0.0.0.0', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(runtimeDef('rt', port, { host: '0.0.0.0' }), flowServerDef('srv', 'rt'), toolDef('tool', 'echo')));
    const server = helper.getNode('srv');
    const status = await waitForStatus(server, 'red');
    assert.equal(status.shape, 'ring');
    assert.match(status.text ?? '', /loopback/);
    assert.match(status.text ?? '', /0\.0\.0\.0/);
    assert.equal(await probeEndpoint(port), 'refused');
  });

  it('refuses a second endpoint on the same port and path', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('srvFirst', 'rt', [[]], { serverName: 'first endpoint' }),
      flowServerDef('srvSecond', 'rt', [[]], { serverName: 'second endpoint' }),
      toolDef('tool', 'echo'),
    ));
    const first = helper.getNode('srvFirst');
    const second = helper.getNode('srvSecond');
    await waitForStatus(first, 'green');
    const status = await waitForStatus(second, 'red');
    assert.deepEqual(status, { fill: 'red', shape: 'ring', text: `path /mcp is already served on port ${port}` });
    assert.equal(lastStatus(first)?.fill, 'green');
    const initialize = await rpc(port, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'node-test', version: '1.0.0' },
    });
    assert.equal(initialize.body.result.serverInfo.name, 'first endpoint', 'the first endpoint keeps the path');
  });

  it('refuses an endpoint on a port another runtime binds to a different address', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rtLoopback', port),
      runtimeDef('rtLocalhost', port, { host: 'localhost' }),
      flowServerDef('srvA', 'rtLoopback', [[]], { path: '/a' }),
      flowServerDef('srvB', 'rtLocalhost', [[]], { path: '/b' }),
    ));
    await waitForStatus(helper.getNode('srvA'), 'green');
    const status = await waitForStatus(helper.getNode('srvB'), 'red');
    assert.equal(status.text, `port ${port} is already bound to 127.0.0.1 by another runtime`);
  });

  it('shows "port in use" when something else holds the port', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await helper.load(nodes, flowOf(runtimeDef('rt', port), flowServerDef('srv', 'rt'), toolDef('tool', 'echo')));
      const status = await waitForStatus(helper.getNode('srv'), 'red');
      assert.deepEqual(status, { fill: 'red', shape: 'ring', text: `port ${port} is already in use` });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    // A restart command retries once the port is free.
    const server = helper.getNode('srv');
    const seen = statuses(server).length;
    server.receive({ topic: 'restart' });
    await waitForStatus(server, 'green', seen);
    assert.equal((await rpc(port, 'tools/list')).body.result.tools.length, 1);
  });

  it('refuses an invalid path, concurrency limit, stream limit, stored-task cap or missing runtime with a red status', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('badPath', 'rt', [[]], { path: '/oauth/mcp' }),
      flowServerDef('badLimit', 'rt', [[]], { path: '/x', maxConcurrent: '0' }),
      flowServerDef('badStreams', 'rt', [[]], { path: '/z', maxStreams: 'lots' }),
      flowServerDef('badStored', 'rt', [[]], { path: '/w', maxStoredTasksPerCaller: '0' }),
      flowServerDef('noRuntime', '', [[]], { path: '/y' }),
      flowServerDef('sibling', 'rt', [[]], { path: '/sibling' }),
    ));
    assert.deepEqual(lastStatus(helper.getNode('noRuntime')), { fill: 'red', shape: 'ring', text: 'No MCP runtime selected' });
    assert.deepEqual(lastStatus(helper.getNode('badPath')), {
      fill: 'red',
      shape: 'ring',
      text: 'Path must start with / and contain only letters, digits, - _ . ~ and /',
    });
    assert.deepEqual(lastStatus(helper.getNode('badLimit')), {
      fill: 'red',
      shape: 'ring',
      text: 'Concurrent calls must be a whole number from 1 to 10000',
    });
    assert.deepEqual(lastStatus(helper.getNode('badStreams')), { fill: 'red', shape: 'ring', text: 'Open streams must be a whole number from 1 to 100000' });
    assert.deepEqual(lastStatus(helper.getNode('badStored')), { fill: 'red', shape: 'ring', text: 'Stored tasks per caller must be a whole number from 1 to 1000000' });
    await expectNeverStarted(port, ['badPath', 'badLimit', 'badStreams', 'badStored', 'noRuntime'], '/oauth/mcp', '/x', '/y', '/z', '/w');
  });

  it('shows the Base URL in its status and accepts that host name under Local access', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port, { baseUrl: `http://mcp.localtest:${port}` }),
      flowServerDef('srv', 'rt'),
      toolDef('tool', 'echo'),
    ));
    const proxied = helper.getNode('srv');
    const status = await waitForStatus(proxied, 'green');
    assert.equal(status.text, `1 tool on http://mcp.localtest:${port}/mcp`);
    const viaName = await rpc(port, 'tools/list', {}, 1, '/mcp', { host: `mcp.localtest:${port}` });
    assert.equal(viaName.status, 200);
    const otherName = await rpc(port, 'tools/list', {}, 1, '/mcp', { host: `attacker.example:${port}` });
    assert.equal(otherName.status, 403);
  });

  it('returns structured content checked against the output schema', async () => {
    const port = await freePort();
    const outputSchema = JSON.stringify({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] });
    const { server, received } = await serve(port, [toolDef('tool', 'count', { outputSchema })]);

    const good = callTool(port, 'count', { text: 'a' }, 1);
    await waitFor(() => received.length === 1, 'the first call');
    server.receive({ topic: 'mcp-tool-response', payload: { executionId: received[0]!.payload.executionId, result: { n: 3 } } });
    const goodBody = (await good).body;
    assert.deepEqual(goodBody.result.structuredContent, { n: 3 });
    assert.deepEqual(JSON.parse(textOf(goodBody)), { n: 3 });

    const bad = callTool(port, 'count', { text: 'b' }, 2);
    await waitFor(() => received.length === 2, 'the second call');
    server.receive({ topic: 'mcp-tool-response', payload: { executionId: received[1]!.payload.executionId, result: { n: 'three' } } });
    const badBody = (await bad).body;
    assert.equal(badBody.result.isError, true);
    assert.match(textOf(badBody), /does not match its output schema: \/n: /);
  });

  it('shares one port between endpoints on different paths, each with its own tools', async () => {
    const port = await freePort();
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('a', 'rt', [[]], { path: '/a' }),
      flowServerDef('b', 'rt', [[]], { path: '/b' }),
      toolDef('ta', 'alpha', { endpoint: '/a' }),
      toolDef('tb', 'beta', { endpoint: '/b' }),
      toolDef('ts', 'shared', { endpoint: '*' }),
    ));
    await waitForStatus(helper.getNode('a'), 'green');
    await waitForStatus(helper.getNode('b'), 'green');
    const names = async (path: string) =>
      (await rpc(port, 'tools/list', {}, 1, path)).body.result.tools.map((tool: { name: string }) => tool.name);
    assert.deepEqual(await names('/a'), ['alpha', 'shared']);
    assert.deepEqual(await names('/b'), ['beta', 'shared']);
    assert.equal(await probeEndpoint(port, '/c'), 404);
  });

  it('refuses calls beyond maxConcurrent with JSON-RPC -32000 before they reach the flow', async () => {
    const port = await freePort();
    const { server, received } = await serve(port, [toolDef('tool', 'echo')], { maxConcurrent: '1' });
    const first = callTool(port, 'echo', { text: 'one' }, 1);
    await waitFor(() => received.length === 1, 'the first call to reach the flow');
    const second = await callTool(port, 'echo', { text: 'two' }, 2);
    assert.equal(second.body.error?.code, -32000);
    assert.match(second.body.error?.message ?? '', /busy/i);
    server.receive({ topic: 'mcp-tool-response', payload: { executionId: received[0]!.payload.executionId, result: 'done' } });
    assert.equal(textOf((await first).body), 'done');
    // The next call is the flow's second message: the refused one never reached it in between.
    const third = callTool(port, 'echo', { text: 'three' }, 3);
    await waitFor(() => received.length > 1, 'the third call to reach the flow');
    assert.deepEqual(received.map((msg) => msg.payload.arguments.text), ['one', 'three']);
    server.receive({ topic: 'mcp-tool-response', payload: { executionId: received[1]!.payload.executionId, result: 'three done' } });
    assert.equal(textOf((await third).body), 'three done');
  });

  it('a client that disconnects frees its call slot, and the late answer is dropped with a warning', async () => {
    const port = await freePort();
    // A metrics node reports each finished call: how the test sees the server notice the hang-up.
    await helper.load(nodes, flowOf(
      runtimeDef('rt', port),
      flowServerDef('srv', 'rt', [['out']], { maxConcurrent: 1 }),
      helperDef('out'),
      toolDef('tool', 'echo'),
      { id: 'metrics', type: 'mcp-server-metrics', ...{ z: TAB_ID, x: 200, y: 600 }, runtime: 'rt', wires: [['finished']] },
      helperDef('finished'),
    ));
    const server = helper.getNode('srv');
    const received = record(helper.getNode('out'));
    const finished: Array<{ status: string }> = [];
    helper.getNode('finished').on('input', (msg) => finished.push(msg.payload));
    await waitForStatus(server, 'green');
    const abandoned = request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    });
    abandoned.on('error', () => undefined);
    abandoned.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'gone' } } }));
    await waitFor(() => received.length === 1, 'the first call to reach the flow');
    abandoned.destroy();

    // The server reports the call ended by the hang-up; the flow never answered it, so only the
    // hang-up can have freed the endpoint's single slot, and the next call goes straight through.
    await waitFor(() => finished.find((event) => event.status === 'cancelled'), 'the server to notice the hang-up');
    const next = callTool(port, 'echo', { text: 'next' }, 2);
    // The flow hears that the first call was abandoned: one mcp-tool-cancel.
    const executes = () => received.filter((msg) => msg.topic === 'mcp-tool-execute');
    const cancels = await waitFor(() => {
      const found = received.filter((msg) => msg.topic === 'mcp-tool-cancel');
      return found.length > 0 && found;
    }, 'the mcp-tool-cancel message');
    assert.deepEqual(cancels.map((msg) => msg.payload), [{ executionId: executes()[0]!.payload.executionId, reason: 'disconnected' }]);
    await waitFor(() => executes().length === 2, 'the next call to reach the flow');
    server.receive({ topic: 'mcp-tool-response', payload: { executionId: executes()[1]!.payload.executionId, result: 'second' } });
    assert.equal(textOf((await next).body), 'second');

    server.receive({ topic: 'mcp-tool-response', payload: { executionId: executes()[0]!.payload.executionId, result: 'late' } });
    const [warning] = await waitFor(() => messagesOf(server, 'warn').length > 0 && messagesOf(server, 'warn'), 'node.warn');
    assert.match(warning!, new RegExp(`unknown or finished execution ${executes()[0]!.payload.executionId}`));
    assert.equal(received.filter((msg) => msg.topic === 'mcp-tool-cancel').length, 1, 'a late answer causes no further cancel');
  });

  it('ends a call the flow never answers after the tool timeout', async () => {
    const port = await freePort();
    const { server, received } = await serve(port, [toolDef('tool', 'echo', { timeout: '1' })]);
    const response = await callTool(port, 'echo', { text: 'x' });
    assert.equal(received.length, 1);
    assert.equal(response.body.result.isError, true);
    assert.equal(textOf(response.body), 'Tool "echo" did not answer within 1 s (its time limit).');
    // The late answer finds nothing waiting.
    server.receive({ topic: 'mcp-tool-response', payload: { executionId: received[0]!.payload.executionId, result: 'late' } });
    await waitFor(() => messagesOf(server, 'warn').length > 0, 'the warning for the late answer');
  });

  it('Local access refuses a browser Origin that is not local', async () => {
    const port = await freePort();
    await serve(port);
    const foreign = await rpc(port, 'tools/list', {}, 1, '/mcp', { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body.error.message, /Origin is not a local address/);
    const local = await rpc(port, 'tools/list', {}, 1, '/mcp', { origin: `http://localhost:${port}` });
    assert.equal(local.status, 200);
  });

  it('a call pending when the flow is unloaded gets an isError result saying the endpoint went away', async () => {
    const port = await freePort();
    const { received } = await serve(port);
    const pending = callTool(port, 'echo', { text: 'x' });
    await waitFor(() => received.length === 1, 'the mcp-tool-execute message');
    await helper.unload();
    const response = await pending;
    assert.equal(response.status, 200);
    assert.equal(response.body.result.isError, true);
    // Stopping all flows closes nodes with removed=false, which the node reports as a redeploy.
    assert.equal(textOf(response.body), 'Tool "echo" was not answered: the endpoint was redeployed.');
    assert.equal(await probeEndpoint(port), 'refused', 'the listener closed with its last endpoint');
  });

  it('a deploy that deletes the endpoint ends its pending call as removed', async () => {
    const port = await freePort();
    const { received } = await serve(port);
    const pending = callTool(port, 'echo', { text: 'x' });
    await waitFor(() => received.length === 1, 'the mcp-tool-execute message');
    await helper.setFlows(flowOf(runtimeDef('rt', port), helperDef('out'), toolDef('tool', 'echo')), 'full');
    const response = await pending;
    assert.equal(response.body.result.isError, true);
    assert.equal(textOf(response.body), 'Tool "echo" was not answered: the endpoint was removed.');
    assert.equal(await probeEndpoint(port), 'refused');
  });

  it('a deploy that moves the endpoint to another path serves it there on the same port', async () => {
    const port = await freePort();
    await serve(port);
    await helper.setFlows(
      flowOf(
        runtimeDef('rt', port),
        flowServerDef('srv', 'rt', [['out']], { path: '/moved' }),
        helperDef('out'),
        toolDef('tool', 'echo', { endpoint: '/moved' }),
      ),
      'nodes',
    );
    const server = helper.getNode('srv');
    await waitFor(() => lastStatus(server)?.fill === 'green' && lastStatus(server), 'the moved endpoint to serve');
    assert.equal(lastStatus(server)?.text, `1 tool on http://127.0.0.1:${port}/moved`);
    const listed = await rpc(port, 'tools/list', {}, 1, '/moved');
    assert.deepEqual(listed.body.result.tools.map((tool: { name: string }) => tool.name), ['echo']);
    assert.equal(await probeEndpoint(port, '/mcp'), 404);
  });

  it('a deploy that only adds a tool refreshes the catalog of the running endpoint', async () => {
    const port = await freePort();
    const flow = [runtimeDef('rt', port), flowServerDef('srv', 'rt', [['out']]), helperDef('out'), toolDef('tool', 'echo')];
    const { server } = await serve(port, flow.slice(3));
    const before = statuses(server).length;
    await helper.setFlows(flowOf(...flow, toolDef('tool2', 'shout')), 'nodes');
    await waitFor(() => statuses(server).slice(before).some((status) => status.text?.startsWith('2 tools')), 'the refreshed status');
    assert.equal(helper.getNode('srv'), server, 'the endpoint node was not restarted');
    assert.ok(!statuses(server).slice(before).some((status) => status.fill === 'grey'), 'the endpoint never stopped');
    const listed = await rpc(port, 'tools/list');
    assert.deepEqual(listed.body.result.tools.map((tool: { name: string }) => tool.name), ['echo', 'shout']);
  });
});
