import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { answer, flowServer, oidcAuth, storage, tab, tool, TAB } from '../support/flows.js';
import { connect, postJsonRpc, rawRequest, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, signedInClient, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

// One-port mode: the MCP runtime serves on Node-RED's own HTTP server (its httpNode routes), so
// everything below talks to the editor's port; there is no second listener.

const CLIENT_ID = 'https://client.test/oauth/claude-like.json';
const BRIDGE_CLIENT = { id: 'node-red-bridge', secret: 'bridge-secret-for-tests' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } };

function nodeRedRuntime(id: string, baseUrl = ''): FlowNode {
  // Port and bind address are what an untouched dialog saves; one-port mode does not use them.
  return { id, type: 'mcp-runtime', name: '', server: 'node-red', port: '1881', host: '127.0.0.1', baseUrl };
}

/** An `http in` route answering `text`, as a user's own flow on the same server would. */
function httpRoute(id: string, method: string, url: string, text: string): FlowNode[] {
  return [
    { id, type: 'http in', z: TAB, name: '', url, method, upload: false, swaggerDoc: '', x: 100, y: 300, wires: [[`${id}-fn`]] },
    answer(`${id}-fn`, `msg.payload = ${JSON.stringify(text)};\nreturn msg;`, `${id}-out`),
    { id: `${id}-out`, type: 'http response', z: TAB, name: '', statusCode: '', headers: {}, x: 500, y: 300, wires: [] },
  ];
}

const echo = (id: string, back: string) =>
  answer(id, `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: 'echo ' + msg.payload.arguments.text };\nreturn msg;`, back);

function localFlows(path: string, extra: FlowNode[] = []): FlowNode[] {
  return [
    tab(),
    nodeRedRuntime('rt'),
    { ...flowServer('fs-local', { runtime: 'rt', path, wires: ['echo'] }), serverName: 'one-port-local' },
    echo('echo', 'fs-local'),
    tool('t-echo', { name: 'echo', endpoint: path, input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }),
    ...httpRoute('hello', 'get', '/hello', 'hello from http in'),
    ...extra,
  ];
}

async function callEcho(url: string, text: string): Promise<string> {
  const client = await connect(url, 'legacy');
  try {
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    return (result.content as Array<{ text: string }>)[0]!.text;
  } finally {
    await client.close();
  }
}

describe(`one-port mode (MCP on Node-RED's own HTTP server) on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let nodeRed: NodeRedProcess;
  let port: number;
  let origin: string;

  const oauthNodes = (): FlowNode[] => [
    storage('store', 'memory'),
    oidcAuth('auth', { storage: 'store', issuer: idp.issuer, clientId: BRIDGE_CLIENT.id, secretEnv: 'MCP_TEST_OIDC_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    { ...flowServer('fs-oauth', { runtime: 'rt', path: '/tools', wires: ['who'] }), access: 'oauth', auth: 'auth', groups: 'mcp-users' },
    answer('who', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: { email: msg.mcp.email, endpoint: msg.mcp.endpoint } };\nreturn msg;`, 'fs-oauth'),
    tool('t-who', { name: 'whoami', endpoint: '/tools' }),
  ];
  const flows = (localPath = '/local', extra: FlowNode[] = []) =>
    localFlows(localPath, [...oauthNodes(), ...extra]).map((node) => (node.id === 'rt' ? nodeRedRuntime('rt', origin) : node));

  before(async () => {
    port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    idp = await startTestIdp({
      clients: [{ client_id: BRIDGE_CLIENT.id, client_secret: BRIDGE_CLIENT.secret, redirect_uris: [`${origin}/oauth/team/callback`] }],
    });
    // An http in route on POST /clash shares its path with an MCP endpoint: one of the two must say so.
    const clash = [
      ...httpRoute('clash-in', 'post', '/clash', 'clash answered by http in'),
      { ...flowServer('fs-clash', { runtime: 'rt', path: '/clash' }), serverName: 'clashing' },
      // The editor shares the root (httpAdminRoot /) and answers /flows before any httpNode route.
      { ...flowServer('fs-editor-clash', { runtime: 'rt', path: '/flows' }), serverName: 'editor-clash' },
    ];
    nodeRed = await startNodeRed(flows('/local', clash), { uiPort: port, env: { MCP_TEST_OIDC_SECRET: BRIDGE_CLIENT.secret } });
    await waitForEndpoint(`${origin}/local`);
    await waitForEndpoint(`${origin}/tools`);
  });
  after(async () => {
    await nodeRed?.stop();
    await idp?.stop();
  });

  it('serves a Local endpoint on the editor port to the official client, and logs where', async () => {
    assert.equal(await callEcho(`${origin}/local`, 'one port'), 'echo one port');
    await nodeRed.waitForOutput(`MCP routes are served on Node-RED's HTTP server under /`);
  });

  it('keeps the Host and Origin checks of Local access', async () => {
    assert.equal((await postJsonRpc(`${origin}/local`, INITIALIZE, { host: 'evil.example:80' })).status, 403);
    assert.equal((await postJsonRpc(`${origin}/local`, INITIALIZE, { origin: 'http://evil.example' })).status, 403);
    assert.equal((await postJsonRpc(`${origin}/local`, INITIALIZE, { origin: `http://localhost:${port}` })).status, 200);
  });

  it('keeps the request body limit', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(300 * 1024) } } });
    const response = await rawRequest(`${origin}/local`, {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: big,
    });
    assert.equal(response.status, 413);
  });

  it('leaves http in routes on the same port answering', async () => {
    const response = await fetch(`${origin}/hello`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'hello from http in');
  });

  it('does not serve an endpoint whose path an http in node answers: the flow server says so, the http in keeps its path', async () => {
    await nodeRed.waitForOutput("path /clash is not served: Node-RED's HTTP server also answers it with POST /clash");
    const response = await fetch(`${origin}/clash`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(INITIALIZE) });
    assert.equal(await response.text(), 'clash answered by http in');
    await nodeRed.waitForOutput("path /flows is not served: Node-RED's HTTP server also answers it with the editor's /flows routes");
  });

  it('serves OAuth discovery at the origin root and signs in through the bridge, consent included, to a tool call', async () => {
    const asMetadata = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>;
    assert.equal(asMetadata.issuer, origin);
    assert.equal(asMetadata.authorization_endpoint, `${origin}/oauth/team/authorize`);
    const prm = await (await fetch(`${origin}/.well-known/oauth-protected-resource/tools`)).json() as Record<string, unknown>;
    assert.equal(prm.resource, `${origin}/tools`);
    assert.deepEqual(prm.authorization_servers, [origin]);
    const unauthorized = await postJsonRpc(`${origin}/tools`, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.equal(unauthorized.status, 401);
    assert.match(String(unauthorized.headers['www-authenticate']), new RegExp(`resource_metadata="${origin}/.well-known/oauth-protected-resource/tools"`));

    const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
    const client = await signedInClient(`${origin}/tools`, provider, idp, 'alice');
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      const caller = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
      assert.deepEqual(caller, { email: 'alice@example.test', endpoint: '/tools' });
    } finally {
      await client.close();
    }
    await nodeRed.waitForOutput(/"event":"mcp\.tool_call","outcome":"success","tool":"whoami","subject":"alice"/);
  });

  it('redeploys without stacking routes: a moved endpoint leaves its old path to an http in node, the dispatcher is installed once', async () => {
    for (let deploy = 0; deploy < 3; deploy += 1) {
      await nodeRed.deploy(flows('/local'));
      await waitForEndpoint(`${origin}/local`);
    }
    await nodeRed.deploy(flows('/moved', httpRoute('old-path', 'post', '/local', 'old path now an http in')));
    await waitForEndpoint(`${origin}/moved`);
    assert.equal(await callEcho(`${origin}/moved`, 'after redeploys'), 'echo after redeploys');
    const old = await fetch(`${origin}/local`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(INITIALIZE) });
    assert.equal(await old.text(), 'old path now an http in');
    assert.equal(nodeRed.output().split(`MCP routes are served on Node-RED's HTTP server`).length - 1, 1, 'one dispatcher for the life of Node-RED');
  });

  it('gives a served path up when a later deploy adds an http in route on it, and says so', async () => {
    const since = nodeRed.output().length;
    // A "modified nodes" deploy: the flow server is not restarted, only the new http in starts.
    await nodeRed.deploy(flows('/moved', httpRoute('late', 'post', '/moved', 'late http in wins')), 'nodes');
    await nodeRed.waitForOutput("path /moved is not served: Node-RED's HTTP server also answers it with POST /moved", since);
    const response = await fetch(`${origin}/moved`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(INITIALIZE) });
    assert.equal(await response.text(), 'late http in wins');
  });
});

describe(`one-port mode under an httpNodeRoot and behind httpNodeAuth on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;
  let origin: string;
  const basic = `Basic ${Buffer.from('flows:secret-pass').toString('base64')}`;

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const flows = [
      ...localFlows('/local'),
      storage('store', 'memory'),
      oidcAuth('auth', { storage: 'store', issuer: 'http://127.0.0.1:9/unused', clientId: 'unused', secretEnv: 'MCP_TEST_UNUSED_SECRET' }),
      { ...flowServer('fs-oauth', { runtime: 'rt', path: '/tools' }), access: 'oauth', auth: 'auth', groups: 'mcp-users' },
    ].map((node) => (node.id === 'rt' ? nodeRedRuntime('rt', origin) : node));
    nodeRed = await startNodeRed(flows, {
      uiPort: port,
      env: { MCP_TEST_UNUSED_SECRET: 'unused' },
      // Node-RED accepts an MD5 hex digest as a legacy httpNodeAuth password.
      // Listening on every address, as Node-RED in Docker does.
      settings: { uiHost: '0.0.0.0', httpNodeRoot: '/api', httpNodeAuth: { user: 'flows', pass: createHash('md5').update('secret-pass').digest('hex') } },
    });
  });
  after(async () => {
    await nodeRed?.stop();
  });

  it('serves a Local endpoint under httpNodeRoot, behind Node-RED\'s own basic authentication', async () => {
    await nodeRed.waitForOutput(`MCP routes are served on Node-RED's HTTP server under /api/`);
    assert.equal((await postJsonRpc(`${origin}/api/local`, INITIALIZE)).status, 401, "httpNodeAuth stands in front of every httpNode route");
    const accepted = await postJsonRpc(`${origin}/api/local`, INITIALIZE, { authorization: basic });
    assert.equal(accepted.status, 200);
    assert.equal((await fetch(`${origin}/local`, { method: 'POST' })).status, 404, 'nothing is served outside httpNodeRoot');
  });

  const external = Object.values(networkInterfaces()).flat().find((address) => address?.family === 'IPv4' && !address.internal)?.address;
  it('refuses Local access to a connection from another address, even with Host localhost', { skip: external ? false : 'this machine has no non-loopback IPv4 address' }, async () => {
    const url = `http://${external}:${new URL(origin).port}/api/local`;
    const refused = await postJsonRpc(url, INITIALIZE, { authorization: basic, host: `localhost:${new URL(origin).port}` });
    assert.equal(refused.status, 403);
    assert.match(refused.body, /this machine only/);
  });

  it('refuses to start an OAuth endpoint there, naming httpNodeRoot (discovery must be at the origin root)', async () => {
    await nodeRed.waitForOutput(`OAuth sign-in on Node-RED's HTTP server needs httpNodeRoot "/" (it is /api)`);
    assert.equal((await fetch(`${origin}/api/tools`, { method: 'POST', headers: { authorization: basic } })).status, 404);
  });
});

describe(`one-port mode with httpNodeAuth at the root on ${nodeRedPackage}`, () => {
  let nodeRed: NodeRedProcess;

  before(async () => {
    const port = await freePort();
    const flows = [
      tab(),
      nodeRedRuntime('rt', `http://127.0.0.1:${port}`),
      storage('store', 'memory'),
      oidcAuth('auth', { storage: 'store', issuer: 'http://127.0.0.1:9/unused', clientId: 'unused', secretEnv: 'MCP_TEST_UNUSED_SECRET' }),
      { ...flowServer('fs-oauth', { runtime: 'rt', path: '/tools' }), access: 'oauth', auth: 'auth', groups: 'mcp-users' },
    ];
    nodeRed = await startNodeRed(flows, {
      uiPort: port,
      env: { MCP_TEST_UNUSED_SECRET: 'unused' },
      settings: { httpNodeAuth: { user: 'flows', pass: createHash('md5').update('secret-pass').digest('hex') } },
    });
  });
  after(async () => {
    await nodeRed?.stop();
  });

  it('refuses to start an OAuth endpoint behind httpNodeAuth, which would refuse every MCP token', async () => {
    await nodeRed.waitForOutput(`OAuth sign-in cannot be served on Node-RED's HTTP server while settings.js sets httpNodeAuth`);
  });
});
