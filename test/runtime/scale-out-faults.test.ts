import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { startBehindOneBase, type BehindOneBase } from '../support/behind-one-base.js';
import { answer, router, sharedRedisInstance, tool } from '../support/flows.js';
import { postJsonRpc } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, postToken, rawAccessToken, signedInClient, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import type { RedisServer } from '../support/redis-server.js';
import type { TestIdp } from '../support/test-idp.js';

const CLIENT_ID = 'https://client.test/oauth/scale-out.json';
const SECRET = 'bridge-secret-for-scale-out-faults';
const REFRESH_KEY = randomBytes(32).toString('hex');

function instanceFlows(port: number, baseUrl: string, issuer: string, instance: string): FlowNode[] {
  return [
    ...sharedRedisInstance({ port, baseUrl, issuer, bridge: { clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET' }, pinned: [claudeLikeDocument(CLIENT_ID)], wires: ['route'] }),
    router('route', { whereami: 'where', slow: 'slow-fn' }),
    // Each flow says in the Node-RED log that a call reached it, so the test sees where a call ran.
    answer('where', `node.warn('whereami reached the flow');\nmsg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: '${instance}' };\nreturn msg;`, 'fs'),
    // Never answers: the call is pending in this instance's flow until the instance dies.
    answer('slow-fn', `node.warn('slow reached the flow: ' + msg.payload.executionId);\nreturn null;`, 'fs'),
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
  let instances: BehindOneBase | undefined;

  const call = (origin: string, token: string, name = 'whereami') =>
    postJsonRpc(`${origin}/tools`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }, { authorization: `Bearer ${token}` });
  const refreshAt = (origin: string, refreshToken: string) =>
    postToken(origin, 'team', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CLIENT_ID }).toString());
  const signIn = () => rawAccessToken({ base, slug: 'team', clientId: CLIENT_ID, redirectUri: 'http://localhost:7777/callback', idp, username: 'alice' });

  before(async () => {
    instances = await startBehindOneBase({
      bridge: { id: 'bridge', secret: SECRET, secretEnv: 'MCP_TEST_SECRET' },
      refreshTokens: true,
      flows: instanceFlows,
      start: () => ({ credentials: { auth: { oidcRefreshKey: REFRESH_KEY } } }),
    });
    ({ idp, redis, first: one, second: two, base, secondOrigin: originTwo } = instances);
  });
  after(() => instances?.stop());

  it('serves one token from either instance, call after call', async () => {
    const token = await signIn();
    const answers: string[] = [];
    for (let i = 0; i < 6; i += 1) answers.push((await call(i % 2 === 0 ? base : originTwo, token)).json().result.content[0].text);
    assert.deepEqual(answers, ['one', 'two', 'one', 'two', 'one', 'two']);
  });

  it('recovers on both instances after Redis restarts, without restarting Node-RED', async () => {
    const before = await signIn();
    const sinceOne = one.output().length;
    const sinceTwo = two.output().length;
    await redis.restart();
    // Each instance's storage says when it is connected again.
    await one.waitForOutput('redis storage reconnected', sinceOne);
    await two.waitForOutput('redis storage reconnected', sinceTwo);
    // The restarted Redis kept nothing (no persistence here), so old tokens are gone: a 401, not a hang.
    assert.equal((await call(base, before)).status, 401);
    assert.equal((await call(originTwo, before)).status, 401);
    const after = await signIn();
    assert.equal((await call(base, after)).json().result.content[0].text, 'one');
    assert.equal((await call(originTwo, after)).json().result.content[0].text, 'two');
  });

  it('fails a call cleanly when its instance dies mid-call; the other instance serves on with nothing lost', async () => {
    // A signed-in client with a refresh token, the way Claude Code holds one.
    const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
    await (await signedInClient(`${base}/tools`, provider, idp, 'alice')).close();
    const tokens = provider.tokens();
    assert.ok(tokens.refresh_token, 'a refresh token was issued');

    const sinceOne = one.output().length;
    const sinceTwo = two.output().length;
    const outcome = call(base, tokens.access_token, 'slow').then(
      (response) => ({ answered: response }),
      (error: NodeJS.ErrnoException) => ({ failed: error }),
    );
    // The call passed the bearer check and is now pending in instance one's flow.
    await one.waitForOutput(/\[function:slow-fn\] slow reached the flow: [0-9a-f]{32}/, sinceOne);
    const stateBefore = await redisState(redis.url);
    assert.ok(stateBefore.size > 0, 'the sign-in is stored in Redis');

    await one.kill();
    const ended = await outcome;
    // The request itself fails (node:http reports errors after a response began on the response,
    // never here): the connection was reset before instance one sent a single byte of answer, so
    // the client can tell "unknown outcome, instance gone" from any answer the palette gives.
    assert.ok('failed' in ended, `the call was answered: ${'answered' in ended ? ended.answered.body : ''}`);
    assert.equal(ended.failed.code, 'ECONNRESET');
    assert.match(ended.failed.message, /^(socket hang up|read ECONNRESET)$/);

    // Nothing in Redis went with instance one: every token, session and consent record is there.
    assert.deepEqual(await redisState(redis.url), stateBefore);
    // Instance two serves the same access token, and refreshes the session instance one started.
    assert.equal((await call(originTwo, tokens.access_token)).json().result.content[0].text, 'two');
    const refreshed = await refreshAt(originTwo, tokens.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, tokens.refresh_token, 'rotated');
    assert.equal((await call(originTwo, refreshed.body.access_token)).json().result.content[0].text, 'two');
    // The dead instance's call was not run again on instance two: its log shows the calls above
    // reaching the flow, and no slow call before them.
    await two.waitForOutput(/whereami reached the flow[\s\S]*whereami reached the flow/, sinceTwo);
    assert.doesNotMatch(two.output().slice(sinceTwo), /slow reached the flow/);
  });
});

/** Every key in Redis with its value (as a dump, whatever its type): what a crash must not lose. */
async function redisState(url: string): Promise<Map<string, string>> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const state = new Map<string, string>();
    for (const key of (await client.keys('*')).sort()) {
      const dump = await client.dumpBuffer(key);
      if (dump) state.set(key, dump.toString('base64'));
    }
    return state;
  } finally {
    client.disconnect();
  }
}
