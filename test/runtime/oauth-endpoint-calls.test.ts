import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect as tcpConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, oauthServer, oidcAuth, prompt, resource, router, runtime, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { postJsonRpc, rawRequest, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, rawAccessToken } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startTcpGate, type TcpGate } from '../support/tcp-gate.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

/**
 * Tool calls on an OAuth endpoint whose tokens live in a real Redis reached through a TCP gate, so
 * a token lookup can be held in flight; a Local endpoint beside it on another runtime.
 */

const CLIENT_ID = 'https://client.test/oauth/claude-like.json';
const REDIRECT = 'http://127.0.0.1:49152/callback';
const BRIDGE_CLIENT = { id: 'node-red-bridge', secret: 'bridge-secret-for-tests' };
const REFRESH_KEY = randomBytes(32).toString('hex');

function flows(port: number, localPort: number, issuer: string): FlowNode[] {
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    storage('store', 'redis', 'MCP_TEST_REDIS_URL'),
    oidcAuth('auth', { storage: 'store', issuer, clientId: BRIDGE_CLIENT.id, secretEnv: 'MCP_TEST_OIDC_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    // One call at a time: a call that kept its slot would make the next one -32000.
    { ...oauthServer('fs', { runtime: 'rt', auth: 'auth', path: '/tools', groups: 'mcp-users', wires: ['route'] }), maxConcurrent: '1' },
    router('route', { hold: 'hold-fn', ok: 'ok-fn', shared: 'ok-fn' }),
    // Never answers: the log line proves the flow was given the call.
    answer('hold-fn', `node.warn('flow received a hold call');\nreturn null;`, ''),
    answer('ok-fn', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: 'ok' };\nreturn msg;`, 'fs'),
    tool('t-hold', { name: 'hold', endpoint: '/tools', timeout: 5 }),
    tool('t-ok', { name: 'ok', endpoint: '/tools' }),
    tool('t-shared', { name: 'shared', endpoint: '*' }),
    // Answered without the flow: enough to see their audit lines.
    resource('r-guide', { uri: 'docs://{topic}/guide', endpoint: '/tools', source: 'static', text: 'Guide to {{topic}}' }),
    prompt('p-brief', { name: 'brief', endpoint: '/tools', arguments: [{ name: 'secret_word', values: 'alpha, beta' }], messages: [{ role: 'user', text: 'Brief on {{secret_word}}' }] }),
    runtime('rt-local', localPort),
    flowServer('fs-local', { runtime: 'rt-local', path: '/local', wires: ['ok-fn'] }),
  ];
}

/** A tools/call written straight onto a socket, so the test decides when the client hangs up. */
function callOnSocket(port: number, token: string, name: string) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: {} } });
  const socket = tcpConnect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    [
      'POST /tools HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'MCP-Protocol-Version: 2025-11-25',
      `Authorization: Bearer ${token}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
  return socket;
}

describe(`calls on an OAuth endpoint on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let redis: RedisServer;
  let gate: TcpGate;
  let nodeRed: NodeRedProcess;
  let port: number;
  let base: string;
  let localUrl: string;
  let token: string;

  before(async () => {
    port = await freePort();
    const localPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    localUrl = `http://127.0.0.1:${localPort}/local`;
    idp = await startTestIdp({
      clients: [{ client_id: BRIDGE_CLIENT.id, client_secret: BRIDGE_CLIENT.secret, redirect_uris: [`${base}/oauth/team/callback`] }],
      refreshTokens: true,
    });
    redis = await startRedis();
    gate = await startTcpGate(redis.port);
    nodeRed = await startNodeRed(flows(port, localPort, idp.issuer), {
      env: { MCP_TEST_OIDC_SECRET: BRIDGE_CLIENT.secret, MCP_TEST_REDIS_URL: `redis://127.0.0.1:${gate.port}` },
      credentials: { auth: { oidcRefreshKey: REFRESH_KEY } },
    });
    await Promise.all([waitForEndpoint(`${base}/tools`), waitForEndpoint(localUrl)]);
    token = await rawAccessToken({ base, slug: 'team', clientId: CLIENT_ID, redirectUri: REDIRECT, idp, username: 'alice', resource: `${base}/tools` });
  });

  after(async () => {
    await nodeRed?.stop();
    await gate?.stop();
    await idp?.stop();
    await redis?.stop();
  });

  it('advertises the provider scopes as securitySchemes (and under _meta) on OAuth tools, noauth on Local ones', async () => {
    const metadata = await (await fetch(`${base}/.well-known/oauth-protected-resource/tools`)).json();
    const scopes = metadata.scopes_supported as string[];
    // Refresh is configured on this mcp-auth, so offline_access is one of them.
    assert.ok(scopes.includes('offline_access'), JSON.stringify(scopes));
    const expected = [{ type: 'oauth2', scopes }];

    const listed = await postJsonRpc(`${base}/tools`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${token}` });
    assert.equal(listed.status, 200, listed.body);
    const tools = listed.json().result.tools as Array<{ name: string; securitySchemes?: unknown; _meta?: Record<string, unknown> }>;
    assert.deepEqual(tools.map((tool) => tool.name), ['hold', 'ok', 'shared']);
    for (const tool of tools) {
      assert.deepEqual(tool.securitySchemes, expected, tool.name);
      assert.deepEqual(tool._meta?.['securitySchemes'], expected, tool.name);
    }

    const local = await postJsonRpc(localUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const [shared] = local.json().result.tools as Array<{ name: string; securitySchemes?: unknown; _meta?: Record<string, unknown> }>;
    assert.equal(shared?.name, 'shared');
    assert.deepEqual(shared.securitySchemes, [{ type: 'noauth' }]);
    assert.deepEqual(shared._meta?.['securitySchemes'], [{ type: 'noauth' }]);
  });

  it('writes an audit line per resource read, prompt and completion, naming the template and the caller but no values', async () => {
    const since = nodeRed.output().length;
    const headers = { authorization: `Bearer ${token}` };
    const read = await postJsonRpc(`${base}/tools`, { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'docs://pumps-xyzzy/guide' } }, headers);
    assert.equal(read.json().result.contents[0].text, 'Guide to pumps-xyzzy');
    const got = await postJsonRpc(`${base}/tools`, { jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'brief', arguments: { secret_word: 'plugh' } } }, headers);
    assert.equal(got.json().result.messages[0].content.text, 'Brief on plugh');
    const completed = await postJsonRpc(
      `${base}/tools`,
      { jsonrpc: '2.0', id: 3, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'brief' }, argument: { name: 'secret_word', value: 'al' } } },
      headers,
    );
    assert.deepEqual(completed.json().result.completion.values, ['alpha']);
    const unknown = await postJsonRpc(`${base}/tools`, { jsonrpc: '2.0', id: 4, method: 'prompts/get', params: { name: 'nope' } }, headers);
    assert.equal(unknown.json().error.code, -32602);
    const lines = await nodeRed.waitForMatches(/\{"event":"mcp\.(resource_read|prompt_get|completion)"[^\n]*\}/g, 4, since);
    const events = lines.map((match) => JSON.parse(match[0]!));
    const read0 = events.find((e) => e.event === 'mcp.resource_read');
    assert.equal(read0.resource, 'docs://{topic}/guide');
    assert.equal(read0.outcome, 'success');
    assert.equal(read0.client, 'client.test');
    assert.ok(typeof read0.subject === 'string' && read0.subject !== '', JSON.stringify(read0));
    assert.deepEqual(events.filter((e) => e.event === 'mcp.prompt_get').map((e) => [e.prompt, e.outcome]).sort(), [['brief', 'success'], ['unknown', 'unknown_prompt']]);
    assert.equal(events.find((e) => e.event === 'mcp.completion').ref, 'brief');
    // The caller's values are input, like tool arguments: never in the log.
    const written = nodeRed.output().slice(since);
    assert.doesNotMatch(written, /xyzzy|plugh/);
  });

  it('notices a client that hangs up while its token is checked: the flow never gets the call and the slot is free', async () => {
    // A token never checked before: the earlier tests' token may be answered from the grant cache
    // (AccessGrantCache) without asking Redis, and this call's lookup must go to Redis.
    const fresh = await rawAccessToken({ base, slug: 'team', clientId: CLIENT_ID, redirectUri: REDIRECT, idp, username: 'alice', resource: `${base}/tools` });
    const since = nodeRed.output().length;
    // Everything Node-RED sends to Redis is held from here: the next lookup is this call's token.
    const lookupWaiting = gate.hold();
    const socket = callOnSocket(port, fresh, 'hold');
    await lookupWaiting;
    // A reset, as a client killed mid-request leaves it; then one full exchange on the same
    // listener, so Node-RED has handled the hang-up before Redis answers the lookup.
    socket.resetAndDestroy();
    assert.equal((await rawRequest(`${base}/not-served`, { method: 'GET' })).status, 404);
    gate.release();

    await nodeRed.waitForOutput(/"event":"mcp\.tool_call","outcome":"[a-z_]+","tool":"hold"/, since);
    const output = nodeRed.output().slice(since);
    assert.match(output, /"event":"mcp\.tool_call","outcome":"cancelled","tool":"hold","subject":"alice"/);
    assert.doesNotMatch(output, /flow received a hold call/);

    const next = await postJsonRpc(`${base}/tools`, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ok', arguments: {} } }, { authorization: `Bearer ${token}` });
    assert.equal(next.json().result?.content?.[0]?.text, 'ok', next.body);
  });
});
