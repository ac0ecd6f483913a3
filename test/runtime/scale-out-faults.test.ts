import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer, oauthServer, oidcAuth, router, runtimeBehind, storage, tab, tool } from '../support/flows.js';
import { postJsonRpc, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, rawAccessToken } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

const CLIENT_ID = 'https://client.test/oauth/scale-out.json';
const SECRET = 'bridge-secret-for-scale-out-faults';

function instanceFlows(port: number, baseUrl: string, issuer: string, instance: string): FlowNode[] {
  return [
    tab(),
    runtimeBehind('rt', port, baseUrl),
    storage('store', 'redis', 'MCP_TEST_REDIS_URL'),
    oidcAuth('auth', { storage: 'store', issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    oauthServer('fs', { runtime: 'rt', auth: 'auth', path: '/tools', groups: 'mcp-users', wires: ['route'] }),
    router('route', { whereami: 'where', slow: 'slow-fn' }),
    answer('where', `msg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: '${instance}' };\nreturn msg;`, 'fs'),
    answer('slow-fn', `const id = msg.payload.executionId;\nsetTimeout(() => node.send({ topic: 'mcp-tool-response', payload: { executionId: id, result: 'slow' } }), 10000);\nreturn null;`, 'fs'),
    tool('t-where', { name: 'whereami', endpoint: '/tools' }),
    tool('t-slow', { name: 'slow', endpoint: '/tools' }),
  ];
}

describe(`two instances behind one Base URL when things break, on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let redis: RedisServer;
  let one: NodeRedProcess;
  let two: NodeRedProcess;
  let base: string;
  let originTwo: string;

  const call = (origin: string, token: string, name = 'whereami') =>
    postJsonRpc(`${origin}/tools`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }, { authorization: `Bearer ${token}` });
  const signIn = () => rawAccessToken({ base, slug: 'team', clientId: CLIENT_ID, redirectUri: 'http://localhost:7777/callback', idp, username: 'alice' });

  before(async () => {
    const portOne = await freePort();
    const portTwo = await freePort();
    base = `http://127.0.0.1:${portOne}`;
    originTwo = `http://127.0.0.1:${portTwo}`;
    idp = await startTestIdp({ clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [`${base}/oauth/team/callback`] }] });
    redis = await startRedis();
    const env = { MCP_TEST_SECRET: SECRET, MCP_TEST_REDIS_URL: redis.url };
    [one, two] = await Promise.all([
      startNodeRed(instanceFlows(portOne, base, idp.issuer, 'one'), { env }),
      startNodeRed(instanceFlows(portTwo, base, idp.issuer, 'two'), { env }),
    ]);
    await waitForEndpoint(`${base}/tools`);
    await waitForEndpoint(`${originTwo}/tools`);
  });
  after(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await idp?.stop();
    await redis?.stop();
  });

  it('serves one token from either instance, call after call', async () => {
    const token = await signIn();
    const answers: string[] = [];
    for (let i = 0; i < 6; i += 1) answers.push((await call(i % 2 === 0 ? base : originTwo, token)).json().result.content[0].text);
    assert.deepEqual(answers, ['one', 'two', 'one', 'two', 'one', 'two']);
  });

  it('recovers on both instances after Redis restarts, without restarting Node-RED', async () => {
    const before = await signIn();
    await redis.restart();
    // The restarted Redis kept nothing (no persistence here), so old tokens are gone: a 401, not a hang.
    let status = 0;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      status = (await call(base, before)).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 401);
    const after = await signIn();
    assert.equal((await call(base, after)).json().result.content[0].text, 'one');
    assert.equal((await call(originTwo, after)).json().result.content[0].text, 'two');
  });

  it('fails a call cleanly when its instance dies mid-call; the next call on the other instance succeeds', async () => {
    const token = await signIn();
    const outcome = call(base, token, 'slow').then(
      () => 'answered',
      (error: Error) => `failed: ${error.message}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await one.kill();
    // The connection breaks at once instead of hanging until the flow's 10 s answer.
    assert.match(await outcome, /^failed: /);
    assert.equal((await call(originTwo, token)).json().result.content[0].text, 'two');
  });
});
