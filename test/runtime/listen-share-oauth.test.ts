import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { oauthServer, oidcAuth, runtimeWithBaseUrl, storage, tab, tool } from '../support/flows.js';
import { listenOnceAccepted, protocolError, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { accessTokensOf, claudeLikeDocument } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { stopInTurn } from '../support/stop-in-turn.js';
import { ALICE_AND_CAROL, startTestIdp, type TestIdp } from '../support/test-idp.js';

const CLIENT_ID = 'https://client.test/oauth/listen.json';
const SECRET = 'bridge-secret-for-listen-tests';
/** Open streams of the endpoint: each caller's share is a tenth of it, so 2. */
const MAX_STREAMS = 20;

describe(`each caller's share of the subscriptions/listen streams of an OAuth endpoint on ${nodeRedPackage}`, () => {
  let idp: TestIdp;
  let nodeRed: NodeRedProcess;
  let url: string;
  let alice: string;
  let carol: string;

  /** The official client, on 2026-07-28, sending the user's bearer token. */
  const clientOf = async (token: string) => {
    const client = new Client({ name: 'listen-share-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  };

  before(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    url = `${base}/tools`;
    idp = await startTestIdp({
      clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [`${base}/oauth/team/callback`] }],
      users: ALICE_AND_CAROL,
    });
    nodeRed = await startNodeRed(
      [
        tab(),
        runtimeWithBaseUrl('rt', port),
        storage('store', 'memory'),
        oidcAuth('auth', { storage: 'store', issuer: idp.issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
        { ...oauthServer('fs', { runtime: 'rt', auth: 'auth', path: '/tools', groups: 'mcp-users' }), maxStreams: String(MAX_STREAMS) },
        tool('t-any', { name: 'anything', endpoint: '/tools' }),
      ],
      { env: { MCP_TEST_SECRET: SECRET } },
    );
    await waitForEndpoint(url);
    [alice, carol] = await accessTokensOf({ base, clientId: CLIENT_ID, idp }, ['alice', 'carol']);
  });
  after(() => stopInTurn(nodeRed, idp));

  it('refuses a caller past its share while another caller still gets its own, and gives the slot back when a stream closes', async () => {
    const since = nodeRed.output().length;
    const aliceClient = await clientOf(alice);
    const carolClient = await clientOf(carol);
    const aliceStreams = [await aliceClient.listen({ toolsListChanged: true }), await aliceClient.listen({ toolsListChanged: true })];
    const refused = await protocolError(aliceClient.listen({ toolsListChanged: true }));
    assert.equal(refused.code, -32603);
    assert.match(refused.message, /Subscription limit reached: this caller already has 2 change-notification streams open on \/tools, the most one caller may hold \(a tenth of the endpoint's 20\)/);
    await nodeRed.waitForOutput('subscriptions/listen on /tools refused: a caller already holds its 2 streams', since);
    // Another user is not crowded out by the first.
    const carolStreams = [await carolClient.listen({ toolsListChanged: true }), await carolClient.listen({ toolsListChanged: true })];
    await protocolError(carolClient.listen({ toolsListChanged: true }));
    // A stream that closes gives its caller the slot back (the server hears the hang-up a moment later).
    await aliceStreams.pop()!.close();
    const again = await listenOnceAccepted(aliceClient);
    assert.ok(again, 'alice may listen again once one of her streams closed');
    await Promise.all([...aliceStreams, again, ...carolStreams].map((stream) => stream.close()));
    await Promise.all([aliceClient.close(), carolClient.close()]);
  });
});
