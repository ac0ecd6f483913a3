import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { answer, oauthServer, oidcAuth, router, runtimeWithBaseUrl, storage, tab, tool, topicSwitch } from '../support/flows.js';
import { postJsonRpc, waitForEndpoint, type RawResponse } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { accessTokensOf, claudeLikeDocument } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { TaskClient } from '../support/task-client.js';
import { ALICE_AND_CAROL, startTestIdp, type TestIdp } from '../support/test-idp.js';
import { modernMeta } from '../support/served-endpoint.js';
import { stopInTurn } from '../support/stop-in-turn.js';

const CLIENT_ID = 'https://client.test/oauth/cancel.json';
const SECRET = 'bridge-secret-for-cancel-tests';

const ASK_CITY = `const p = msg.payload;
node.warn('ask-round ' + (p.inputRound || 0) + ' by=' + msg.mcp.subject);
if (p.inputRound) {
  msg.topic = 'mcp-tool-response';
  msg.payload = { executionId: p.executionId, result: JSON.stringify(p.inputResponses) };
  return msg;
}
msg.topic = 'mcp-tool-input';
msg.payload = { executionId: p.executionId, requests: { city: { elicitation: { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } } };
return msg;`;

/** The envelope and headers of a 2026-07-28 tools/call, declaring elicitation. */
const MODERN_META = modernMeta({ elicitation: { form: {} } }, {}, 'cancel-test');
const modernHeaders = (name: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });

/**
 * `hold` waits until `release` answers it; an mcp-tool-cancel is logged with its reason. Whether a
 * cancel worked therefore shows in the held call's own result: 'released' or cancelled.
 */
function holdFlows(port: number, issuer: string): FlowNode[] {
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    storage('store', 'memory'),
    oidcAuth('auth', { storage: 'store', issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    oauthServer('fs', { runtime: 'rt', auth: 'auth', path: '/tools', groups: 'mcp-users', wires: ['by-topic'] }),
    topicSwitch('by-topic', { 'mcp-tool-execute': 'route', 'mcp-tool-cancel': 'on-cancel' }),
    router('route', { hold: 'hold-fn', release: 'release-fn', background: 'background-fn', ask_city: 'ask-fn' }),
    // Asks for a city in its first round and answers with what it got in the next.
    answer('ask-fn', ASK_CITY, 'fs'),
    { ...tool('t-ask', { name: 'ask_city', endpoint: '/tools' }), asks: 'elicitation' },
    answer('background-fn', `node.warn('background-started ' + msg.mcp.taskId + ' by=' + msg.mcp.subject);\nreturn null;`, 'fs'),
    tool('t-background', { name: 'background', endpoint: '/tools', taskSupport: 'optional' }),
    answer('hold-fn', `global.set('held', msg.payload.executionId);\nnode.warn('hold-started ' + msg.mcp.requestId);\nreturn null;`, 'fs'),
    answer('release-fn', `node.send({ topic: 'mcp-tool-response', payload: { executionId: global.get('held'), result: 'released' } });\nmsg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: 'ok' };\nreturn msg;`, 'fs'),
    answer('on-cancel', `node.warn('hold-cancelled reason=' + msg.payload.reason + ' by=' + msg.mcp.subject);\nreturn null;`, ''),
    tool('t-hold', { name: 'hold', endpoint: '/tools' }),
    tool('t-release', { name: 'release', endpoint: '/tools' }),
  ];
}

describe(`cancelling calls on an OAuth endpoint on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let nodeRed: NodeRedProcess;
  let base: string;
  let alice: string;
  let carol: string;

  const post = (token: string, message: unknown) => postJsonRpc(`${base}/tools`, message, { authorization: `Bearer ${token}` });
  const callTool = (token: string, id: number, name: string) => post(token, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
  const cancel = (token: string, requestId: number) => post(token, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'test' } });
  const text = (response: RawResponse) => response.json().result.content[0].text as string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startTestIdp({
      clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [`${base}/oauth/team/callback`] }],
      users: ALICE_AND_CAROL,
    });
    nodeRed = await startNodeRed(holdFlows(port, idp.issuer), { env: { MCP_TEST_SECRET: SECRET } });
    await waitForEndpoint(`${base}/tools`);
    [alice, carol] = await accessTokensOf({ base, clientId: CLIENT_ID, idp }, ['alice', 'carol']);
  });
  after(() => stopInTurn(nodeRed, idp));

  it("ignores another user's cancel for the same request id: the call goes on and is answered", async () => {
    const since = nodeRed.output().length;
    const held = callTool(alice, 42, 'hold');
    await nodeRed.waitForOutput(/hold-started 42/, since);
    assert.equal((await cancel(carol, 42)).status, 202);
    // The cancel was decided before its 202; the held call must still be there to be released.
    assert.equal(text(await callTool(alice, 43, 'release')), 'ok');
    assert.equal(text(await held), 'released');
    assert.doesNotMatch(nodeRed.output().slice(since), /hold-cancelled/);
  });

  it("ends the call on its own caller's cancel, once, with one mcp-tool-cancel", async () => {
    const since = nodeRed.output().length;
    const held = callTool(alice, 44, 'hold');
    await nodeRed.waitForOutput(/hold-started 44/, since);
    assert.equal((await cancel(alice, 44)).status, 202);
    assert.equal((await cancel(alice, 44)).status, 202, 'a second cancel is accepted and ignored');
    const response = await held;
    assert.equal(response.json().result.isError, true);
    assert.match(text(response), /cancelled by the client/);
    await nodeRed.waitForOutput(/hold-cancelled reason=cancelled by=/, since);
    assert.equal(nodeRed.output().slice(since).match(/hold-cancelled/g)?.length, 1);
  });

  it('refuses a cancel without a token like any other request', async () => {
    const response = await postJsonRpc(`${base}/tools`, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    assert.equal(response.status, 401);
  });

  it("binds a 2026-07-28 requestState to its caller: another user's retry with it is refused and never reaches the flow", async () => {
    const since = nodeRed.output().length;
    const ask = (token: string, extra: object) =>
      postJsonRpc(`${base}/tools`, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'ask_city', arguments: {}, ...extra, _meta: MODERN_META } }, { authorization: `Bearer ${token}`, ...modernHeaders('ask_city') });
    const first = (await ask(alice, {})).json().result;
    assert.equal(first.resultType, 'input_required');
    const inputResponses = { city: { action: 'accept', content: { city: 'Oslo' } } };
    const stolen = (await ask(carol, { inputResponses, requestState: first.requestState })).json();
    assert.equal(stolen.error?.code, -32602);
    assert.match(stolen.error.message, /Invalid or expired requestState/);
    const resumed = (await ask(alice, { inputResponses, requestState: first.requestState })).json().result;
    assert.deepEqual(JSON.parse(resumed.content[0].text), inputResponses, 'the caller who was asked resumes with the same state');
    const rounds = nodeRed.output().slice(since).match(/ask-round \d+ by=\S+/g) ?? [];
    assert.equal(rounds.length, 2, `the flow ran round 0 and round 1 only: ${rounds.join(', ')}`);
    assert.ok(!rounds.some((line) => line.includes('carol')), 'nothing ran for the other user');
  });

  it("takes a 2025-era answer only from the caller who was asked: another user's POSTed answer gets 400 and changes nothing", async () => {
    const since = nodeRed.output().length;
    const url = `${base}/tools`;
    let strangerStatus: number | undefined;
    const client = new Client({ name: 'asked-client', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' }, capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (_request, ctx) => {
      // Carol answers the question Alice was asked, under its request id, before Alice does.
      const forged = { jsonrpc: '2.0', id: ctx.mcpReq.id, result: { action: 'accept', content: { city: 'Lyon' } } };
      strangerStatus = (await post(carol, forged)).status;
      return { action: 'accept', content: { city: 'Oslo' } } as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${alice}` } } }));
    try {
      const result = (await client.callTool({ name: 'ask_city', arguments: {} })) as { content: Array<{ text: string }> };
      assert.equal(strangerStatus, 400, "the other user's answer matched no question of theirs");
      assert.deepEqual(JSON.parse(result.content[0]!.text), { city: { action: 'accept', content: { city: 'Oslo' } } }, 'the flow got the asked caller’s answer');
      assert.deepEqual(nodeRed.output().slice(since).match(/ask-round \d+ by=\S+/g)?.map((line) => line.split(' ')[1]), ['0', '1']);
    } finally {
      await client.close();
    }
  });

  it("keeps a task to its own caller: another user can neither see, list nor cancel it", async () => {
    const since = nodeRed.output().length;
    const rpc = async (token: string, method: string, params: object) => (await post(token, { jsonrpc: '2.0', id: 7, method, params })).json();
    const created = await rpc(alice, 'tools/call', { name: 'background', arguments: {}, task: { ttl: 60_000 } });
    const taskId = created.result.task.taskId as string;
    await nodeRed.waitForOutput(`background-started ${taskId} by=`, since);
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/result']) {
      const refused = await rpc(carol, method, { taskId });
      assert.equal(refused.error?.code, -32602, `${method} by another user`);
      assert.match(refused.error.message, /Unknown task/);
    }
    assert.deepEqual((await rpc(carol, 'tasks/list', {})).result.tasks, []);
    assert.equal((await rpc(alice, 'tasks/get', { taskId })).result.status, 'working', "the stranger's cancel changed nothing");
    assert.deepEqual((await rpc(alice, 'tasks/list', {})).result.tasks.map((task: { taskId: string }) => task.taskId), [taskId]);
    assert.equal((await rpc(alice, 'tasks/cancel', { taskId })).result.status, 'cancelled');
    await nodeRed.waitForOutput(/hold-cancelled reason=cancelled by=/, since);
  });

  it("keeps a 2026-07-28 task to its own caller: another user can neither read, answer nor cancel it", async () => {
    const since = nodeRed.output().length;
    const owner = await TaskClient.connect(`${base}/tools`, 'modern', { token: alice });
    const stranger = await TaskClient.connect(`${base}/tools`, 'modern', { token: carol });
    try {
      const taskId = TaskClient.taskIdOf(await owner.call('background', {}));
      await nodeRed.waitForOutput(`background-started ${taskId} by=`, since);
      const codeOf = (promise: Promise<unknown>) => promise.then(() => 'answered', (error: { code?: unknown }) => error.code);
      assert.equal(await codeOf(stranger.get(taskId)), -32602, 'tasks/get by another user');
      assert.equal(await codeOf(stranger.update(taskId, { anything: { action: 'accept', content: {} } })), -32602, 'tasks/update by another user');
      assert.equal(await codeOf(stranger.cancel(taskId)), -32602, 'tasks/cancel by another user');
      assert.equal((await owner.get(taskId))['status'], 'working', "the stranger's requests changed nothing");
      await owner.cancel(taskId);
      assert.equal((await owner.get(taskId))['status'], 'cancelled');
    } finally {
      await owner.close();
      await stranger.close();
    }
  });
});
