import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { answer, appView, flowServer, oauthServer, oidcAuth, prompt, resource, router, runtime, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { JSON_HEADERS, rawRequest, waitForEndpoint, type RawResponse } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, rawAccessToken, signedInClient, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startTestIdp, type TestIdp, type TestUser } from '../support/test-idp.js';

/**
 * One OAuth endpoint serving items limited to groups to three signed-in users of the real OpenID
 * provider: ana (staff), max (staff, maintenance) and ola (staff, plant-a-operators). It is also a
 * hub for edge site plant-a (an edge endpoint in the same Node-RED, through a real Redis), whose
 * tools only plant-a-operators may use. Lists, calls, reads and prompts differ per user; guessed
 * names are answered as names nobody serves; a user who loses a group is refused at the next round.
 */

const CLIENT_ID = 'https://client.test/oauth/item-access.json';
const REDIRECT = 'http://127.0.0.1:49152/callback';
const SECRET = 'bridge-secret-for-item-access';
const USERS: readonly TestUser[] = [
  { username: 'ana', email: 'ana@example.test', name: 'Ana', groups: ['staff'] },
  { username: 'max', email: 'max@example.test', name: 'Max', groups: ['staff', 'maintenance'] },
  { username: 'ola', email: 'ola@example.test', name: 'Ola', groups: ['staff', 'plant-a-operators'] },
];
const RESPOND = `msg.topic = 'mcp-tool-response';`;
const DONE = `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'done ' + msg.payload.toolName + ' for ' + msg.mcp.email };\nreturn msg;`;
const CONFIRM = `const p = msg.payload;
if (!p.inputRound) return { topic: 'mcp-tool-input', payload: { executionId: p.executionId, requests: { ok: { elicitation: { message: 'Stop the press?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } } } } };
node.warn('confirm_stop answered round=' + p.inputRound);
return { topic: 'mcp-tool-response', payload: { executionId: p.executionId, result: 'stopped' } };`;

function flows(port: number, edgePort: number, issuer: string): FlowNode[] {
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    oidcAuth('auth', { storage: 'st', issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    { ...oauthServer('plant', { runtime: 'rt', auth: 'auth', path: '/plant', groups: 'staff', wires: ['route'] }), storage: 'st', hubSites: 'plant-a', hubSiteGroups: 'plant-a: plant-a-operators' },
    router('route', { read_state: 'done-fn', set_point: 'done-fn', plant_a_valve: 'done-fn', confirm_stop: 'confirm-fn', long_report: 'hold-fn', panel_set_point: 'done-fn' }),
    // Never answers: its task keeps running while the test takes a group away.
    answer('hold-fn', `return null;`, ''),
    answer('done-fn', DONE, 'plant'),
    answer('confirm-fn', CONFIRM, 'plant'),
    tool('t-read', { name: 'read_state', endpoint: '/plant' }),
    { ...tool('t-set', { name: 'set_point', endpoint: '/plant' }), allowedGroups: 'maintenance' },
    { ...tool('t-valve', { name: 'plant_a_valve', endpoint: '/plant' }), allowedGroups: 'plant-a-operators, maintenance' },
    { ...tool('t-confirm', { name: 'confirm_stop', endpoint: '/plant' }), allowedGroups: 'maintenance', asks: 'elicitation' },
    { ...tool('t-report', { name: 'long_report', endpoint: '/plant', taskSupport: 'optional' }), allowedGroups: 'maintenance' },
    // An MCP Apps panel whose button calls a view-only tool: hidden from the model by the host, and
    // still limited to maintenance by the endpoint, like any other tool.
    appView('v-panel', { uri: 'ui://plant/panel', source: 'static', text: '<!DOCTYPE html><p>panel</p>', endpoint: '/plant' }),
    { ...tool('t-panel', { name: 'panel_set_point', endpoint: '/plant' }), appView: 'ui://plant/panel', visibility: 'app', allowedGroups: 'maintenance' },
    resource('r-state', { uri: 'plant://state', endpoint: '/plant', source: 'static', text: 'all well' }),
    { ...resource('r-secret', { uri: 'plant://secret', endpoint: '/plant', source: 'static', text: 'the door code' }), allowedGroups: 'maintenance' },
    { ...resource('r-logs', { uri: 'plant://logs/{day}', endpoint: '/plant', source: 'static', text: 'log of {{day}}' }), allowedGroups: 'plant-a-operators' },
    prompt('p-summary', { name: 'summary', endpoint: '/plant', messages: [{ role: 'user', text: 'Summarise the plant' }] }),
    { ...prompt('p-plan', { name: 'maintenance_plan', endpoint: '/plant', messages: [{ role: 'user', text: 'Plan the maintenance' }] }), allowedGroups: 'maintenance' },
    // Edge site plant-a: a Local endpoint in the same Node-RED, relayed to the hub through Redis.
    runtime('rt-edge', edgePort),
    { ...flowServer('edge', { runtime: 'rt-edge', path: '/edge', wires: ['edge-fn'] }), storage: 'st', edgeSite: 'plant-a' },
    tool('t-open', { name: 'open_valve', endpoint: '/edge' }),
    answer('edge-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'valve opened at plant-a for ' + msg.mcp.email };\nreturn msg;`, 'edge'),
  ];
}

describe(`access per tool, resource, prompt and edge site on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let redis: RedisServer;
  let nodeRed: NodeRedProcess;
  let base: string;
  let url: string;
  const tokens: Record<string, string> = {};
  const clients: Client[] = [];

  const signIn = (username: string) => rawAccessToken({ base, slug: 'team', clientId: CLIENT_ID, redirectUri: REDIRECT, idp, username, resource: url });
  const post = (token: string, method: string, params: Record<string, unknown>, era: 'legacy' | 'modern' = 'legacy'): Promise<RawResponse> => {
    if (era === 'legacy') {
      return rawRequest(url, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method, params }) });
    }
    const name = params['uri'] ?? params['name'];
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    return rawRequest(url, {
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}), authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method, params: { ...params, _meta } }),
    });
  };
  /** An answer as one text, without what differs by nature between two requests. */
  const shape = (response: RawResponse, name: string) =>
    `${response.status}\n${Object.entries(response.headers).filter(([header]) => !['date', 'content-length', 'transfer-encoding'].includes(header)).map(([header, value]) => `${header}: ${String(value)}`).join('\n')}\n\n${response.body.split(name).join('NAME')}`;

  before(async () => {
    const [port, edgePort] = [await freePort(), await freePort()];
    base = `http://127.0.0.1:${port}`;
    url = `${base}/plant`;
    idp = await startTestIdp({ users: USERS, clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [`${base}/oauth/team/callback`] }] });
    redis = await startRedis();
    nodeRed = await startNodeRed(flows(port, edgePort, idp.issuer), {
      env: { MCP_TEST_REDIS_URL: `redis://127.0.0.1:${redis.port}`, MCP_TEST_SECRET: SECRET },
      credentials: { auth: { oidcRefreshKey: randomBytes(32).toString('hex') } },
    });
    await waitForEndpoint(url);
    for (const user of USERS) tokens[user.username] = await signIn(user.username);
    // The edge announces itself within its heartbeat: wait until the hub serves its tool.
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const listed = (await post(tokens['ola']!, 'tools/list', {})).json().result.tools as Array<{ name: string }>;
      if (listed.some((listedTool) => listedTool.name === 'plant-a.open_valve')) break;
      await delay(100);
    }
  });

  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await nodeRed?.stop();
    await idp?.stop();
    await redis?.stop();
  });

  it('shows each user, signed in with the official client, only its own tools, resources, templates and prompts', async () => {
    const seen: Record<string, unknown> = {};
    for (const user of USERS) {
      const client = await signedInClient(url, new TestOAuthProvider(CLIENT_ID, await freePort()), idp, user.username, 'auto');
      clients.push(client);
      seen[user.username] = {
        tools: (await client.listTools()).tools.map((listed) => listed.name),
        resources: (await client.listResources()).resources.map((listed) => listed.uri),
        templates: (await client.listResourceTemplates()).resourceTemplates.map((listed) => listed.uriTemplate),
        prompts: (await client.listPrompts()).prompts.map((listed) => listed.name),
      };
    }
    assert.deepEqual(seen, {
      ana: { tools: ['read_state'], resources: ['plant://state', 'ui://plant/panel'], templates: [], prompts: ['summary'] },
      max: { tools: ['confirm_stop', 'long_report', 'panel_set_point', 'plant_a_valve', 'read_state', 'set_point'], resources: ['plant://secret', 'plant://state', 'ui://plant/panel'], templates: [], prompts: ['maintenance_plan', 'summary'] },
      ola: { tools: ['plant-a.open_valve', 'plant_a_valve', 'read_state'], resources: ['plant://state', 'ui://plant/panel'], templates: ['plant://logs/{day}'], prompts: ['summary'] },
    });
  });

  it('lets each user call, read and get what its groups allow, edge tools of its site included', async () => {
    const [, max, ola] = clients;
    assert.deepEqual((await max!.callTool({ name: 'set_point', arguments: {} })).content, [{ type: 'text', text: 'done set_point for max@example.test' }]);
    assert.deepEqual((await ola!.callTool({ name: 'plant_a_valve', arguments: {} })).content, [{ type: 'text', text: 'done plant_a_valve for ola@example.test' }]);
    assert.deepEqual((await ola!.callTool({ name: 'plant-a.open_valve', arguments: {} })).content, [{ type: 'text', text: 'valve opened at plant-a for ola@example.test' }]);
    // A view's button calls its view-only tool as the same signed-in user (the host passes it on).
    assert.deepEqual((await max!.callTool({ name: 'panel_set_point', arguments: {} })).content, [{ type: 'text', text: 'done panel_set_point for max@example.test' }]);
    assert.deepEqual((await max!.readResource({ uri: 'plant://secret' })).contents.map((part) => ('text' in part ? part.text : '')), ['the door code']);
    assert.deepEqual((await ola!.readResource({ uri: 'plant://logs/monday' })).contents.map((part) => ('text' in part ? part.text : '')), ['log of monday']);
    assert.match(JSON.stringify((await max!.getPrompt({ name: 'maintenance_plan' })).messages), /Plan the maintenance/);
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`answers ana's guesses of hidden names exactly as names nobody serves (${era === 'legacy' ? '2025-11-25' : '2026-07-28'}), audited as refusals`, async () => {
      const guesses: Array<[string, Record<string, unknown>, string, Record<string, unknown>, string]> = [
        ['tools/call', { name: 'set_point', arguments: {} }, 'set_point', { name: 'set_pint0', arguments: {} }, 'set_pint0'],
        ['tools/call', { name: 'confirm_stop', arguments: {} }, 'confirm_stop', { name: 'confirm_stap', arguments: {} }, 'confirm_stap'],
        ['tools/call', { name: 'panel_set_point', arguments: {} }, 'panel_set_point', { name: 'panel_set_pont', arguments: {} }, 'panel_set_pont'],
        ['tools/call', { name: 'plant-a.open_valve', arguments: {} }, 'plant-a.open_valve', { name: 'plant-b.open_valve', arguments: {} }, 'plant-b.open_valve'],
        ['resources/read', { uri: 'plant://secret' }, 'plant://secret', { uri: 'plant://sacret' }, 'plant://sacret'],
        ['resources/read', { uri: 'plant://logs/monday' }, 'plant://logs/monday', { uri: 'plant://lags/monday' }, 'plant://lags/monday'],
        ['prompts/get', { name: 'maintenance_plan' }, 'maintenance_plan', { name: 'maintenance_plam' }, 'maintenance_plam'],
      ];
      const since = nodeRed.output().length;
      for (const [method, hiddenParams, hidden, absentParams, absent] of guesses) {
        const refused = await post(tokens['ana']!, method, hiddenParams, era);
        const unknown = await post(tokens['ana']!, method, absentParams, era);
        assert.ok(refused.json().error, `${method} ${hidden}: ${refused.body}`);
        assert.equal(shape(refused, hidden), shape(unknown, absent), `${method} ${hidden}`);
      }
      // The audit log names what was refused and to whom; the caller was told nothing of it.
      await nodeRed.waitForOutput(/"event":"mcp\.prompt_get","outcome":"not_allowed","prompt":"maintenance_plan","subject":"ana"/, since);
      const output = nodeRed.output().slice(since);
      assert.match(output, /"event":"mcp\.tool_call","outcome":"not_allowed","tool":"set_point","subject":"ana"/);
      assert.match(output, /"event":"mcp\.tool_call","outcome":"not_allowed","tool":"panel_set_point","subject":"ana"/);
      assert.match(output, /"event":"mcp\.tool_call","outcome":"not_allowed","tool":"plant-a\.open_valve","subject":"ana"/);
      assert.match(output, /"event":"mcp\.resource_read","outcome":"not_allowed","resource":"plant:\/\/logs\/\{day\}","subject":"ana"/);
    });
  }

  it('refuses a user who lost a group between two rounds of an asking call, and at its next call', async () => {
    const first = await post(tokens['max']!, 'tools/call', { name: 'confirm_stop', arguments: {} }, 'modern');
    const asked = first.json().result;
    assert.equal(asked.resultType, 'input_required', first.body);
    idp.setGroups('max', ['staff']);
    const after = await signIn('max');
    const retry = await post(after, 'tools/call', { name: 'confirm_stop', arguments: {}, inputResponses: { ok: { action: 'accept', content: { ok: true } } }, requestState: asked.requestState }, 'modern');
    const unknown = await post(after, 'tools/call', { name: 'confirm_stap', arguments: {}, inputResponses: { ok: { action: 'accept', content: { ok: true } } }, requestState: asked.requestState }, 'modern');
    assert.equal(shape(retry, 'confirm_stop'), shape(unknown, 'confirm_stap'));
    assert.equal(retry.json().error.code, -32602);
    assert.doesNotMatch(nodeRed.output(), /confirm_stop answered/);
    const list = (await post(after, 'tools/list', {})).json().result.tools.map((listed: { name: string }) => listed.name);
    assert.deepEqual(list, ['read_state']);
    assert.equal((await post(after, 'tools/call', { name: 'set_point', arguments: {} })).json().error.code, -32602);
    idp.setGroups('max', ['staff', 'maintenance']);
  });

  it('refuses a user who lost a group while its task runs: the task is as unknown as any other caller\'s', async () => {
    const before = await signIn('max');
    const started = await post(before, 'tools/call', { name: 'long_report', arguments: {}, task: { ttl: 60_000 } });
    const taskId = started.json().result?.task?.taskId as string;
    assert.equal(typeof taskId, 'string', started.body);
    assert.equal((await post(before, 'tasks/get', { taskId })).json().result.status, 'working');
    idp.setGroups('max', ['staff']);
    try {
      const after = await signIn('max');
      const refused = await post(after, 'tasks/get', { taskId });
      const otherId = taskId.replace(/^./, (first) => (first === 'a' ? 'b' : 'a'));
      const unknown = await post(after, 'tasks/get', { taskId: otherId });
      assert.equal(shape(refused, taskId), shape(unknown, otherId));
      assert.equal(refused.json().error.code, -32602);
      assert.deepEqual((await post(after, 'tasks/list', {})).json().result.tasks, []);
      // The token from before, still carrying the group, still reads it: the groups decided, not the token's age.
      assert.equal((await post(before, 'tasks/get', { taskId })).json().result.status, 'working');
    } finally {
      idp.setGroups('max', ['staff', 'maintenance']);
    }
  });
});
