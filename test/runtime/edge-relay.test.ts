import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect as connectTcp } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { MAX_ANSWER_BYTES } from '../../lib/edge/edge-protocol.js';
import { edgeAclUser, hubAclUser } from '../support/edge-redis.js';
import { answer, flowServer, oauthServer, oidcAuth, router, runtime, runtimeWithBaseUrl, storage, tab, tool, topicSwitch } from '../support/flows.js';
import { connect, rawRequest, JSON_HEADERS, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { claudeLikeDocument, signedInClient, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

/**
 * One hub Node-RED (a local endpoint and a signed-in one), a second hub, and two edge Node-REDs
 * (sites plant-a and plant-b) that reach one real Redis each as its own ACL user, allowed nothing
 * but publish/subscribe on its own site's channels. As the recipe in docs/edge-relay.md has it, Redis's default
 * user is off and the hubs use the docs' hub user. A spy connection (an admin user) records
 * every message on the edge channels, so a test can tell what crossed Redis and what never did.
 */

const PREFIX = 'mcptest';
const CLIENT_ID = 'https://client.test/oauth/edge-relay.json';
const SECRET = 'bridge-secret-for-edge-relay';
const EDGE_PASSWORD = { 'plant-a': 'plant-a-secret', 'plant-b': 'plant-b-secret' } as const;
/** The minimal ACL an edge's Redis user needs (what this suite proves is enough). */
const edgeAcl = (site: keyof typeof EDGE_PASSWORD) => edgeAclUser(site, EDGE_PASSWORD[site], PREFIX);
const ADMIN_PASSWORD = 'admin-secret';
/** The hub user of docs/edge-relay.md, for this suite's key prefix: what this suite proves is enough for a hub with sign-in. */
const { line: hubAcl, password: HUB_PASSWORD } = hubAclUser(PREFIX);

const X_INPUT = { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'], additionalProperties: false };
const RESPOND = `msg.topic = 'mcp-tool-response';`;

function plantAFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_EDGE_REDIS_URL'),
    { ...flowServer('fs', { runtime: 'rt', path: '/edge', wires: ['by-topic', 'direct-fn'] }), storage: 'st', edgeSite: 'plant-a' },
    topicSwitch('by-topic', { 'mcp-tool-execute': 'route', 'mcp-tool-cancel': 'on-cancel' }),
    router('route', { x: 'x-fn', hold: 'hold-fn', release: 'release-fn', short: 'short-fn' }),
    { ...tool('t-x', { name: 'x', endpoint: '/edge', input: X_INPUT }), title: 'Plant A X', readOnlyHint: true, idempotentHint: true },
    answer('x-fn', `node.warn('x-ran tag=' + msg.payload.arguments.tag + ' mcp=' + JSON.stringify(msg.mcp));\n${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'x done ' + msg.payload.arguments.tag + ' at plant-a' };\nreturn msg;`, 'fs'),
    // Answered by a function node straight off the endpoint, with no switch between them: Node-RED's
    // switch node passes on one message per turn, so only a flow like this one finishes a burst of
    // calls in one turn.
    tool('t-direct', { name: 'direct', endpoint: '/edge' }),
    answer('direct-fn', `if (msg.topic !== 'mcp-tool-execute' || msg.payload.toolName !== 'direct') return null;\n${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'direct done' };\nreturn msg;`, 'fs'),
    // Never answers by itself: `release` answers the held call.
    tool('t-hold', { name: 'hold', endpoint: '/edge' }),
    answer('hold-fn', `global.set('held', msg.payload.executionId);\nnode.warn('hold-started ' + msg.payload.executionId);\nreturn null;`, 'fs'),
    tool('t-release', { name: 'release', endpoint: '/edge' }),
    answer('release-fn', `node.send({ topic: 'mcp-tool-response', payload: { executionId: global.get('held'), result: 'released' } });\n${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'ok' };\nreturn msg;`, 'fs'),
    // A one-second limit: the hub gives up on it.
    tool('t-short', { name: 'short', endpoint: '/edge', timeout: 1 }),
    answer('short-fn', `node.warn('short-started ' + msg.payload.executionId);\nreturn null;`, 'fs'),
    // Told a call ended, the flow answers it anyway: a late answer, which must go nowhere.
    answer('on-cancel', `node.warn('cancel-received ' + msg.payload.executionId + ' reason=' + msg.payload.reason);\n${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'late answer' };\nreturn msg;`, 'fs'),
    // The same Node-RED pretending to be site plant-b with plant-a's Redis user: Redis refuses it.
    { ...flowServer('impostor', { runtime: 'rt', path: '/impostor', wires: [] }), storage: 'st', edgeSite: 'plant-b' },
    tool('t-stolen', { name: 'stolen', endpoint: '/impostor' }),
  ];
}

function plantBFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_EDGE_REDIS_URL'),
    { ...flowServer('fs', { runtime: 'rt', path: '/edge', wires: ['route'] }), storage: 'st', edgeSite: 'plant-b' },
    router('route', { y: 'y-fn', clash: 'clash-fn' }),
    { ...tool('t-y', { name: 'y', endpoint: '/edge', input: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] } }), destructiveHint: true },
    answer('y-fn', `node.warn('y-ran n=' + msg.payload.arguments.n);\n${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'y done ' + msg.payload.arguments.n + ' at plant-b' };\nreturn msg;`, 'fs'),
    // Named like a tool the hub declares itself: the hub keeps its own.
    tool('t-clash', { name: 'clash', endpoint: '/edge' }),
    answer('clash-fn', `node.warn('clash-ran');\n${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'clash at plant-b' };\nreturn msg;`, 'fs'),
  ];
}

function hubFlows(port: number, issuer: string): FlowNode[] {
  return [
    tab(),
    runtimeWithBaseUrl('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    oidcAuth('auth', { storage: 'st', issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    { ...flowServer('hub', { runtime: 'rt', path: '/hub', wires: ['hub-fn'] }), storage: 'st', hubSites: 'plant-a, plant-b' },
    tool('t-local-clash', { name: 'plant-b.clash', endpoint: '/hub' }),
    answer('hub-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'clash at the hub' };\nreturn msg;`, 'hub'),
    { ...oauthServer('signed', { runtime: 'rt', auth: 'auth', path: '/signed', groups: 'mcp-users' }), storage: 'st', hubSites: 'plant-a' },
    { id: 'metrics', type: 'mcp-server-metrics', z: 'tab-tests', name: '', runtime: 'rt', x: 100, y: 300, wires: [['telemetry-fn']] },
    answer('telemetry-fn', `node.warn('telemetry tool=' + msg.payload.tool + ' site=' + msg.payload.site + ' status=' + msg.payload.status);\nreturn null;`, ''),
  ];
}

function secondHubFlows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    { ...flowServer('hub', { runtime: 'rt', path: '/hub', wires: [] }), storage: 'st', hubSites: 'plant-a plant-b' },
  ];
}

interface Heard {
  readonly channel: string;
  readonly message: any;
  /** The message's line (its whole text, unless it came in a batch). */
  readonly text: string;
  /** How many messages the Redis message it came in held. */
  readonly batch: number;
  /** Which Redis message it came in (counted from 1 as the spy hears them). */
  readonly seq: number;
}

describe(`edge relay: a hub serving the tools of two edge Node-REDs through Redis, on ${nodeRedPackage}`, () => {
  let redis: RedisServer;
  let idp: TestIdp;
  let hub: NodeRedProcess;
  let hub2: NodeRedProcess;
  let plantA: NodeRedProcess;
  let plantB: NodeRedProcess;
  let hubUrl: string;
  let hub2Url: string;
  let signedUrl: string;
  let admin: Redis;
  let spy: Redis;
  const heard: Heard[] = [];
  const clients: Client[] = [];
  let client: Client;

  const edgeEnv = (site: keyof typeof EDGE_PASSWORD) => ({ MCP_TEST_EDGE_REDIS_URL: `redis://${site}:${EDGE_PASSWORD[site]}@127.0.0.1:${redis.port}` });
  let plantAPort: number;
  const startPlantA = async () => {
    plantAPort = await freePort();
    return startNodeRed(plantAFlows(plantAPort), { env: edgeEnv('plant-a') });
  };
  const channel = (site: string, kind: 'announce' | 'calls' | 'answers') => `${PREFIX}:edge:${site}:${kind}`;
  const publish = (site: string, kind: 'announce' | 'calls' | 'answers', message: unknown) =>
    admin.publish(channel(site, kind), typeof message === 'string' ? message : JSON.stringify(message));
  const heardOn = (site: string, kind: 'announce' | 'calls' | 'answers', since = 0) => heard.slice(since).filter((entry) => entry.channel === channel(site, kind));
  const text = (result: any) => (result.content as Array<{ text: string }>).map((part) => part.text).join('\n');
  const names = async (on: Client) => (await on.listTools()).tools.map((listed) => listed.name).sort();
  /** Polls a hub's tools/list until `done` holds; the limit only stops a broken test from hanging. */
  const listUntil = async (on: Client, done: (listed: string[]) => boolean, what: string) => {
    let listed: string[] = [];
    for (let attempt = 0; attempt < 150; attempt += 1) {
      listed = await names(on);
      if (done(listed)) return listed;
      await delay(100);
    }
    throw new Error(`tools/list never ${what}: ${listed.join(', ')}`);
  };
  /** Resolves once the spy has heard a message matching `match` (after `since`). */
  const heardUntil = async (match: (entry: Heard) => boolean, what: string, since = 0) => {
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const found = heard.slice(since).find(match);
      if (found) return found;
      await delay(50);
    }
    throw new Error(`never heard ${what} on the edge channels`);
  };
  const count = (output: string, pattern: RegExp) => [...output.matchAll(new RegExp(pattern.source, 'g'))].length;
  /** Subscriptions the server holds for `channel` (PUBSUB NUMSUB): who is listening right now. */
  const listeners = async (name: string) => Number(((await admin.pubsub('NUMSUB', name)) as [string, number])[1]);

  before(async () => {
    // The default user off, as the docs' recipe turns it off: a client that names no user gets nowhere.
    redis = await startRedis({ aclUsers: ['default off', `admin on >${ADMIN_PASSWORD} ~* &* +@all`, hubAcl, edgeAcl('plant-a'), edgeAcl('plant-b')] });
    const [hubPort, hub2Port] = [await freePort(), await freePort()];
    hubUrl = `http://127.0.0.1:${hubPort}/hub`;
    signedUrl = `http://127.0.0.1:${hubPort}/signed`;
    hub2Url = `http://127.0.0.1:${hub2Port}/hub`;
    idp = await startTestIdp({ clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [`http://127.0.0.1:${hubPort}/oauth/team/callback`] }] });

    const adminUrl = `redis://admin:${ADMIN_PASSWORD}@127.0.0.1:${redis.port}`;
    admin = new Redis(adminUrl);
    spy = new Redis(adminUrl);
    // A hub and an edge of this version batch the messages of one turn, one per line: each line is heard as a message.
    let seq = 0;
    spy.on('pmessage', (_pattern: string, name: string, text: string) => {
      seq += 1;
      const lines = text.split('\n');
      for (const line of lines) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          parsed = undefined;
        }
        heard.push({ channel: name, message: parsed, text: line, batch: lines.length, seq });
      }
    });
    await spy.psubscribe(`${PREFIX}:edge:*`);

    const hubEnv = { MCP_TEST_REDIS_URL: `redis://hub:${HUB_PASSWORD}@127.0.0.1:${redis.port}`, MCP_TEST_SECRET: SECRET };
    [hub, hub2, plantA, plantB] = await Promise.all([
      startNodeRed(hubFlows(hubPort, idp.issuer), { env: hubEnv, credentials: { auth: { oidcRefreshKey: randomBytes(32).toString('hex') } } }),
      startNodeRed(secondHubFlows(hub2Port), { env: hubEnv }),
      startPlantA(),
      startNodeRed(plantBFlows(await freePort()), { env: edgeEnv('plant-b') }),
    ]);
    await waitForEndpoint(hubUrl);
    await waitForEndpoint(hub2Url);
    client = await connect(hubUrl, 'modern');
    clients.push(client);
    await listUntil(client, (listed) => listed.includes('plant-a.x') && listed.includes('plant-b.y'), 'listed both sites');
  });

  after(async () => {
    for (const open of clients) await open.close().catch(() => undefined);
    admin?.disconnect();
    spy?.disconnect();
    await Promise.all([hub?.stop(), hub2?.stop(), plantA?.stop(), plantB?.stop()]);
    await idp?.stop();
    await redis?.stop();
  });

  it("lists each site's tools under its site name, with their schemas and annotations, and calls them on their edges", async () => {
    const { tools } = await client.listTools();
    const x = tools.find((listed) => listed.name === 'plant-a.x');
    const y = tools.find((listed) => listed.name === 'plant-b.y');
    assert.ok(x && y, tools.map((listed) => listed.name).join(', '));
    assert.deepEqual(x.inputSchema, X_INPUT);
    assert.equal(x.title, 'Plant A X');
    assert.equal(x.description, 'test tool x');
    assert.equal(x.annotations?.readOnlyHint, true);
    assert.equal(y.annotations?.destructiveHint, true);
    assert.deepEqual(y.inputSchema.required, ['n']);
    // Exactly what the edge itself lists, under another name.
    const onEdge = await connect(`http://127.0.0.1:${plantAPort}/edge`, 'modern');
    clients.push(onEdge);
    const { name: _edgeName, ...edgeX } = (await onEdge.listTools()).tools.find((listed) => listed.name === 'x')!;
    const { name: _hubName, ...hubX } = x;
    assert.deepEqual(hubX, edgeX);
    // The palette's own tools and other endpoints' tools stay where they are.
    assert.deepEqual(tools.map((listed) => listed.name).filter((name) => name.startsWith('plant-')).sort(), ['plant-a.direct', 'plant-a.hold', 'plant-a.release', 'plant-a.short', 'plant-a.x', 'plant-b.clash', 'plant-b.y']);

    const sinceA = plantA.output().length;
    const sinceHub = hub.output().length;
    assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'first' } })), 'x done first at plant-a');
    assert.equal(text(await client.callTool({ name: 'plant-b.y', arguments: { n: 7 } })), 'y done 7 at plant-b');
    const ran = /x-ran tag=first mcp=(\{.*\})/.exec(plantA.output().slice(sinceA));
    assert.ok(ran, plantA.output().slice(sinceA));
    const mcp = JSON.parse(ran[1]!);
    assert.equal(mcp.relayedFrom, '/hub');
    assert.equal(mcp.endpoint, '/edge');
    assert.equal(mcp.tool, 'x');
    assert.match(mcp.requestId, /^[0-9a-f]{32}$/);
    // Telemetry on the hub says which site answered; the hub's own tools say none.
    await hub.waitForOutput('telemetry tool=plant-a.x site=plant-a status=success', sinceHub);
    await hub.waitForOutput('telemetry tool=plant-b.y site=plant-b status=success', sinceHub);
  });

  it('carries the signed-in caller to the edge flow, and audits the call with its site', async () => {
    const provider = new TestOAuthProvider(CLIENT_ID, await freePort());
    const signed = await signedInClient(signedUrl, provider, idp, 'alice');
    clients.push(signed);
    const listed = await listUntil(signed, (tools) => tools.includes('plant-a.x'), 'listed plant-a.x on /signed');
    // This endpoint serves plant-a only.
    assert.equal(listed.some((name) => name.startsWith('plant-b.')), false, listed.join(', '));
    const sinceA = plantA.output().length;
    const sinceHub = hub.output().length;
    assert.equal(text(await signed.callTool({ name: 'plant-a.x', arguments: { tag: 'signed' } })), 'x done signed at plant-a');
    const ran = /x-ran tag=signed mcp=(\{.*\})/.exec(plantA.output().slice(sinceA));
    assert.ok(ran, plantA.output().slice(sinceA));
    const mcp = JSON.parse(ran[1]!);
    assert.equal(mcp.email, 'alice@example.test');
    assert.equal(typeof mcp.subject, 'string');
    assert.ok(mcp.groups.includes('mcp-users'), JSON.stringify(mcp.groups));
    // The client as the hub labels it (its metadata document's host).
    assert.equal(mcp.client, 'client.test');
    assert.equal(mcp.relayedFrom, '/signed');
    await hub.waitForOutput(/"event":"mcp\.tool_call","outcome":"success","tool":"plant-a\.x".*"site":"plant-a"/, sinceHub);
  });

  it('starts each edge without a warning: it announces once its storage has connected', () => {
    assert.doesNotMatch(plantA.output(), /site plant-a could not publish/);
    assert.doesNotMatch(plantB.output(), /site plant-b could not publish/);
  });

  it("refuses a client that names no Redis user: an edge cannot skip its own user's limits", async () => {
    // What any client without a user name sends, raw: no AUTH, then a command.
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connectTcp(redis.port, '127.0.0.1', () => socket.write(`PUBLISH ${channel('plant-b', 'calls')} forged\r\n`));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('\r\n')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
    });
    assert.match(reply, /^-NOAUTH /);
  });

  it('checks arguments on the hub: a bad call never crosses Redis', async () => {
    const since = heard.length;
    const sinceA = plantA.output().length;
    const missing = await client.callTool({ name: 'plant-a.x', arguments: {} });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /tag/);
    const wrongType = await client.callTool({ name: 'plant-a.x', arguments: { tag: 5 } });
    assert.equal(wrongType.isError, true);
    assert.match(text(wrongType), /tag: must be string/);
    // A good call after them: once its answer is heard, anything published before it was heard too.
    assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'good' } })), 'x done good at plant-a');
    await heardUntil((entry) => entry.message?.t === 'answer' && /good/.test(entry.text), 'the good answer', since);
    assert.deepEqual(heardOn('plant-a', 'calls', since).map((entry) => entry.message.arguments), [{ tag: 'good' }]);
    assert.equal(count(plantA.output().slice(sinceA), /x-ran/), 1);
  });

  it('keeps a tool declared on the hub when an edge offers one of the same name, and says so', async () => {
    await hub.waitForOutput('edge tool plant-b.clash of site plant-b was refused on /hub: a tool of that name is declared here');
    const listed = await names(client);
    assert.equal(listed.filter((name) => name === 'plant-b.clash').length, 1);
    const since = heard.length;
    assert.equal(text(await client.callTool({ name: 'plant-b.clash', arguments: {} })), 'clash at the hub');
    assert.doesNotMatch(plantB.output(), /clash-ran/);
    assert.equal(heardOn('plant-b', 'calls', since).length, 0);
  });

  it('serves the same edges from a second hub, each hub getting its own answers', async () => {
    const second = await connect(hub2Url, 'legacy');
    clients.push(second);
    await listUntil(second, (listed) => listed.includes('plant-a.x') && listed.includes('plant-b.y'), 'listed both sites on the second hub');
    const calls = await Promise.all([
      client.callTool({ name: 'plant-a.x', arguments: { tag: 'from-hub-one' } }),
      second.callTool({ name: 'plant-a.x', arguments: { tag: 'from-hub-two' } }),
      second.callTool({ name: 'plant-b.y', arguments: { n: 2 } }),
      client.callTool({ name: 'plant-b.y', arguments: { n: 1 } }),
    ]);
    assert.deepEqual(calls.map(text), ['x done from-hub-one at plant-a', 'x done from-hub-two at plant-a', 'y done 2 at plant-b', 'y done 1 at plant-b']);
  });

  describe('several messages in one Redis message', () => {
    it('says so in what hubs and edges of this version send', async () => {
      const since = heard.length;
      const announcement = await heardUntil((entry) => entry.channel === channel('plant-a', 'announce') && entry.message?.t === 'announce', 'a plant-a announcement', since);
      assert.equal(announcement.message.readsBatches, true);
      assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'says-batches' } })), 'x done says-batches at plant-a');
      const sent = await heardUntil((entry) => entry.message?.t === 'call' && /says-batches/.test(entry.text), 'the call', since);
      assert.equal(sent.message.readsBatches, true);
    });

    it('answers thirty calls at once through the hub, each crossing Redis once each way and running once', async (t) => {
      const since = heard.length;
      const sinceA = plantA.output().length;
      const tags = Array.from({ length: 30 }, (_, n) => `load-${n}`);
      const results = await Promise.all(tags.map((tag) => client.callTool({ name: 'plant-a.x', arguments: { tag } })));
      assert.deepEqual(results.map(text), tags.map((tag) => `x done ${tag} at plant-a`));
      const calls = heardOn('plant-a', 'calls', since).filter((entry) => entry.message?.t === 'call' && /"tag":"load-/.test(entry.text));
      assert.equal(calls.length, 30, 'each call crossed once');
      const ids = new Set(calls.map((entry) => entry.message.id as string));
      assert.equal(ids.size, 30);
      for (let attempt = 0; attempt < 100 && heardOn('plant-a', 'answers', since).filter((entry) => ids.has(entry.message?.id)).length < 30; attempt += 1) await delay(20);
      const answers = heardOn('plant-a', 'answers', since).filter((entry) => ids.has(entry.message?.id));
      assert.equal(answers.length, 30, 'each answer crossed once');
      for (const tag of tags) assert.equal(count(plantA.output().slice(sinceA), new RegExp(`x-ran tag=${tag} `)), 1, tag);
      // How many Redis messages they took depends on how the requests met in the hub's turns: said, not
      // judged. The answers go one by one here: this flow routes through switch nodes, which pass on one
      // message per turn (the next test has a flow that answers a burst in one turn).
      const messages = (entries: Heard[]) => entries.reduce((sum, entry) => sum + 1 / entry.batch, 0);
      t.diagnostic(`30 relayed calls took ${Math.round(messages(calls))} call message(s) and ${Math.round(messages(answers))} answer message(s)`);
    });

    it('lets a hub read answers that came in one message', async () => {
      const since = heard.length;
      const held = [client.callTool({ name: 'plant-a.hold', arguments: {} }), client.callTool({ name: 'plant-a.hold', arguments: {} })];
      for (let attempt = 0; attempt < 150 && heardOn('plant-a', 'calls', since).filter((entry) => entry.message?.tool === 'hold').length < 2; attempt += 1) await delay(20);
      const ids = heardOn('plant-a', 'calls', since)
        .filter((entry) => entry.message?.tool === 'hold')
        .map((entry) => entry.message.id as string);
      assert.equal(ids.length, 2);
      await publish('plant-a', 'answers', ids.map((id, n) => JSON.stringify({ t: 'answer', id, result: { content: [{ type: 'text', text: `batched answer ${n}` }] } })).join('\n'));
      assert.deepEqual((await Promise.all(held)).map(text).sort(), ['batched answer 0', 'batched answer 1']);
    });

    it('lets an edge read calls that came in one message, running each once', async () => {
      const since = heard.length;
      const sinceA = plantA.output().length;
      const calls = [1, 2, 3].map((n) => ({ t: 'call', id: randomBytes(16).toString('hex'), tool: 'x', arguments: { tag: `in-one-${n}` }, caller: {}, hub: '/somewhere', protocolVersion: '2025-11-25', readsBatches: true }));
      await publish('plant-a', 'calls', [...calls, calls[0]].map((call) => JSON.stringify(call)).join('\n'));
      for (const call of calls) await heardUntil((entry) => entry.message?.t === 'answer' && entry.message.id === call.id, `the answer to ${call.id}`, since);
      for (const n of [1, 2, 3]) assert.equal(count(plantA.output().slice(sinceA), new RegExp(`x-ran tag=in-one-${n} `)), 1);
    });

    it('lets an edge answer in one message the calls its flow finished in one turn', async () => {
      const since = heard.length;
      const calls = [1, 2, 3].map(() => ({ t: 'call', id: randomBytes(16).toString('hex'), tool: 'direct', arguments: {}, caller: {}, hub: '/somewhere', protocolVersion: '2025-11-25', readsBatches: true }));
      await publish('plant-a', 'calls', calls.map((call) => JSON.stringify(call)).join('\n'));
      const answers = [];
      for (const call of calls) answers.push(await heardUntil((entry) => entry.message?.t === 'answer' && entry.message.id === call.id, `the answer to ${call.id}`, since));
      assert.deepEqual(
        answers.map((entry) => entry.message.result.content[0].text),
        ['direct done', 'direct done', 'direct done'],
      );
      assert.equal(new Set(answers.map((entry) => entry.seq)).size, 1, 'the three answers came in one Redis message');
      assert.equal(answers[0]!.batch, 3);
      // A call that said nothing about batches (a hub of an earlier version) is answered alone.
      const plain = { ...calls[0]!, id: randomBytes(16).toString('hex'), readsBatches: undefined };
      const other = { ...calls[0]!, id: randomBytes(16).toString('hex') };
      await publish('plant-a', 'calls', [plain, other].map((call) => JSON.stringify(call)).join('\n'));
      const alone = await heardUntil((entry) => entry.message?.t === 'answer' && entry.message.id === plain.id, 'the answer to the plain call', since);
      assert.equal(alone.batch, 1);
      await heardUntil((entry) => entry.message?.t === 'answer' && entry.message.id === other.id, 'the answer to the other call', since);
    });
  });

  it('lets Redis refuse an edge that announces as another site with its own user; no hub lists it', async () => {
    // plant-a's user may not listen to or speak on plant-b's channels; the edge says so.
    await plantA.waitForOutput(`redis refused a subscription to ${PREFIX}:edge:plant-b:calls (NOPERM)`);
    await plantA.waitForOutput(/redis storage refused a command \(NOPERM\)/);
    await plantA.waitForOutput('site plant-b could not publish (announcing its tools)');
    // Two real plant-b heartbeats later the hubs still know only the real plant-b's tools.
    const since = heard.length;
    await heardUntil((entry) => entry.channel === channel('plant-b', 'announce'), 'a plant-b heartbeat', since);
    await heardUntil((entry) => entry.channel === channel('plant-b', 'announce'), 'a second plant-b heartbeat', heard.length);
    assert.equal(heard.some((entry) => entry.text.includes('stolen')), false);
    assert.equal((await names(client)).includes('plant-b.stolen'), false);
    const second = await connect(hub2Url, 'modern');
    clients.push(second);
    assert.equal((await names(second)).includes('plant-b.stolen'), false);
  });

  it("refuses and logs a forged announcement on plant-a's channel that names plant-b", async () => {
    const sinceHub = hub.output().length;
    const sinceHub2 = hub2.output().length;
    const forged = { t: 'announce', site: 'plant-b', instance: 'forger', tools: [{ listing: { name: 'forged', inputSchema: { type: 'object' } }, timeoutMs: 5000, maxDurationMs: 5000 }] };
    await publish('plant-a', 'announce', forged);
    const line = 'an announcement of site plant-a was refused: it names site "plant-b" on the channel of site plant-a';
    await hub.waitForOutput(line, sinceHub);
    await hub2.waitForOutput(line, sinceHub2);
    const listed = await names(client);
    assert.equal(listed.some((name) => name.endsWith('.forged')), false, listed.join(', '));
    assert.ok(listed.includes('plant-a.x') && listed.includes('plant-b.y'));
  });

  describe('bad input from the edge channels', () => {
    it('logs a malformed announcement and serves on', async () => {
      const since = hub.output().length;
      await publish('plant-a', 'announce', '{"t":"announce", this is not JSON');
      await hub.waitForOutput('an announcement of site plant-a was refused: not a JSON object', since);
      assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'after-garbage' } })), 'x done after-garbage at plant-a');
    });

    it('ignores answers for unknown calls, and answers from a site the call did not go to', async () => {
      const sinceA = plantA.output().length;
      const held = client.callTool({ name: 'plant-a.hold', arguments: {} });
      const [, id] = (await plantA.waitForOutput(/hold-started ([0-9a-f]{32})/, sinceA).then(() => /hold-started ([0-9a-f]{32})/.exec(plantA.output().slice(sinceA))))!;
      // An answer for a call nobody made, and a forged answer for the held call on another site's channel.
      await publish('plant-a', 'answers', { t: 'answer', id: randomBytes(16).toString('hex'), result: 'nobody asked' });
      await publish('plant-b', 'answers', { t: 'answer', id, result: 'forged by plant-b' });
      // Both were delivered before the release's call reached the edge, so the held call is still the edge's to answer.
      assert.equal(text(await client.callTool({ name: 'plant-a.release', arguments: {} })), 'ok');
      assert.equal(text(await held), 'released');
    });

    it('ends a call with a clear error when its answer is over the size limit', async () => {
      const sinceA = plantA.output().length;
      const sinceHub = hub.output().length;
      const held = client.callTool({ name: 'plant-a.hold', arguments: {} });
      await plantA.waitForOutput(/hold-started [0-9a-f]{32}/, sinceA);
      const id = /hold-started ([0-9a-f]{32})/.exec(plantA.output().slice(sinceA))![1]!;
      await publish('plant-a', 'answers', { t: 'answer', id, result: { content: [{ type: 'text', text: 'x'.repeat(MAX_ANSWER_BYTES) }] } });
      const result = await held;
      assert.equal(result.isError, true);
      assert.match(text(result), new RegExp(`^Site plant-a sent an answer the hub refused: message of \\d+ bytes is over the ${MAX_ANSWER_BYTES} bytes an edge may send\\.$`));
      await hub.waitForOutput('an answer from site plant-a was refused: message of', sinceHub);
      // The edge's own answer, when it comes, finds nothing waiting.
      assert.equal(text(await client.callTool({ name: 'plant-a.release', arguments: {} })), 'ok');
      assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'after-oversized' } })), 'x done after-oversized at plant-a');
    });

    it('runs a call delivered twice only once on the edge', async () => {
      const since = heard.length;
      const sinceA = plantA.output().length;
      const id = randomBytes(16).toString('hex');
      const call = { t: 'call', id, tool: 'x', arguments: { tag: 'twice' }, caller: {}, hub: '/somewhere', protocolVersion: '2025-11-25' };
      await publish('plant-a', 'calls', call);
      await publish('plant-a', 'calls', call);
      await heardUntil((entry) => entry.message?.t === 'answer' && entry.message.id === id, 'the answer to the twice-sent call', since);
      // A later call's answer shows the edge has handled everything sent before it.
      assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'after-twice' } })), 'x done after-twice at plant-a');
      await heardUntil((entry) => entry.message?.t === 'answer' && /after-twice/.test(entry.text), 'the later answer', since);
      assert.equal(heardOn('plant-a', 'answers', since).filter((entry) => entry.message.id === id).length, 1);
      assert.equal(count(plantA.output().slice(sinceA), /x-ran tag=twice /), 1);
    });

    it('rebuilds at most once a second under a flood of changing announcements, logs it once and stays responsive', async () => {
      const real = await heardUntil((entry) => entry.channel === channel('plant-b', 'announce') && entry.message?.t === 'announce', 'a plant-b announcement', heard.length);
      const sinceHub = hub.output().length;
      const flood = Array.from({ length: 200 }, (_, index) => ({ ...real.message, tools: [...real.message.tools, { listing: { name: `flood-${index}`, inputSchema: { type: 'object' } }, timeoutMs: 5000, maxDurationMs: 5000 }] }));
      const calls = Promise.all([client.callTool({ name: 'plant-b.y', arguments: { n: 11 } }), client.callTool({ name: 'plant-a.x', arguments: { tag: 'in-flood' } })]);
      for (const message of flood) await publish('plant-b', 'announce', message);
      assert.deepEqual((await calls).map(text), ['y done 11 at plant-b', 'x done in-flood at plant-a']);
      await hub.waitForOutput('site plant-b announces changed tools faster than once a second; the extra announcements were ignored', sinceHub);
      // At most the first changed announcement was built; the real edge's next heartbeat puts its own tools back.
      const during = (await names(client)).filter((name) => name.startsWith('plant-b.flood-'));
      assert.ok(during.length <= 1, during.join(', '));
      await listUntil(client, (listed) => !listed.some((name) => name.includes('flood-')) && listed.includes('plant-b.y'), 'went back to the real plant-b tools');
      assert.equal(count(hub.output().slice(sinceHub), /announces changed tools faster than once a second/), 1);
    });
  });

  describe('calls the hub gives up on are withdrawn from the edge', () => {
    const heldId = async (since: number) => {
      await plantA.waitForOutput(/hold-started [0-9a-f]{32}/, since);
      return /hold-started ([0-9a-f]{32})/.exec(plantA.output().slice(since))![1]!;
    };
    const expectWithdrawn = async (id: string, reasons: RegExp, sinceHeard: number, sinceA: number) => {
      await heardUntil((entry) => entry.message?.t === 'cancel' && entry.message.id === id, `the cancel of ${id}`, sinceHeard);
      await plantA.waitForOutput(new RegExp(`cancel-received ${id} reason=${reasons.source}`), sinceA);
      // The flow answers right after it hears the cancel; that late answer stops on the edge: nothing
      // for that call crosses Redis (checked after a later call's answer has come back).
      assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: `after-${id}` } })), `x done after-${id} at plant-a`);
      await heardUntil((entry) => entry.message?.t === 'answer' && entry.text.includes(`after-${id}`), 'the later answer', sinceHeard);
      assert.equal(heardOn('plant-a', 'answers', sinceHeard).filter((entry) => entry.message.id === id).length, 0);
      assert.equal(count(plantA.output().slice(sinceA), new RegExp(`cancel-received ${id}`)), 1);
    };

    it('on notifications/cancelled from the client', async () => {
      const legacy = await connect(hubUrl, 'legacy');
      clients.push(legacy);
      const sinceHeard = heard.length;
      const sinceA = plantA.output().length;
      const abort = new AbortController();
      const call = legacy.callTool({ name: 'plant-a.hold', arguments: {} }, { signal: abort.signal }).then(
        () => 'answered',
        () => 'aborted',
      );
      const id = await heldId(sinceA);
      abort.abort('the user pressed stop');
      assert.equal(await call, 'aborted');
      await expectWithdrawn(id, /cancelled/, sinceHeard, sinceA);
    });

    it('when the client hangs up', async () => {
      const sinceHeard = heard.length;
      const sinceA = plantA.output().length;
      const hangUp = new AbortController();
      const call = rawRequest(hubUrl, {
        headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'plant-a.hold', arguments: {} } }),
        hangUp: hangUp.signal,
      }).catch(() => 'hung up');
      const id = await heldId(sinceA);
      hangUp.abort();
      assert.equal(await call, 'hung up');
      await expectWithdrawn(id, /cancelled/, sinceHeard, sinceA);
    });

    it('when the call reaches its time limit on the hub', async () => {
      const sinceHeard = heard.length;
      const sinceA = plantA.output().length;
      const result = await client.callTool({ name: 'plant-a.short', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(text(result), /did not answer within 1 s \(its time limit\)/);
      const id = /short-started ([0-9a-f]{32})/.exec(plantA.output().slice(sinceA))![1]!;
      await heardUntil((entry) => entry.message?.t === 'cancel' && entry.message.id === id, 'the cancel of the timed-out call', sinceHeard);
      // The edge allows a relayed call a second more than the hub waits: the hub's withdrawal ends it there.
      await plantA.waitForOutput(new RegExp(`cancel-received ${id} reason=cancelled`), sinceA);
      assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'after-short' } })), 'x done after-short at plant-a');
      assert.equal(count(plantA.output().slice(sinceA), new RegExp(`cancel-received ${id}`)), 1);
    });
  });

  it("ends a call at once when its edge dies; the other site serves on; the dead site's tools go and come back with it", async () => {
    const sinceA = plantA.output().length;
    const sinceHub = hub.output().length;
    const held = client.callTool({ name: 'plant-a.hold', arguments: {} });
    await plantA.waitForOutput(/hold-started [0-9a-f]{32}/, sinceA);
    await plantA.kill();
    // plant-b answers while plant-a is being given up on.
    assert.equal(text(await client.callTool({ name: 'plant-b.y', arguments: { n: 3 } })), 'y done 3 at plant-b');
    const result = await held;
    assert.equal(result.isError, true);
    // Ended by the site's silence (its 60 s time limit would say "did not answer within 60 s").
    assert.equal(text(result), 'Site plant-a went away before answering (site plant-a stopped answering (no announcement for 6.5 s)).');
    await hub.waitForOutput('site plant-a stopped answering', sinceHub);
    let listed = await names(client);
    assert.equal(listed.some((name) => name.startsWith('plant-a.')), false, listed.join(', '));
    assert.ok(listed.includes('plant-b.y'));
    // The hub remembers the site: a call to its tool is told the site is offline (not "unknown tool").
    const gone = await client.callTool({ name: 'plant-a.x', arguments: { tag: 'while-dead' } });
    assert.equal(gone.isError, true);
    assert.equal(text(gone), 'Site plant-a is offline (site plant-a stopped answering (no announcement for 6.5 s)): tool "plant-a.x" is back when its edge Node-RED announces it again.');
    await plantA.stop();

    plantA = await startPlantA();
    listed = await listUntil(client, (tools) => tools.includes('plant-a.x'), 'listed plant-a.x again');
    assert.ok(listed.includes('plant-b.y'));
    const since = plantA.output().length;
    assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'back' } })), 'x done back at plant-a');
    assert.equal(count(plantA.output().slice(since), /x-ran tag=back /), 1);
  });

  it('fails calls fast with a clear error while Redis is down, recovers after it, and runs nothing twice', async () => {
    const outputs = { hub, hub2, plantA, plantB };
    const since = Object.fromEntries(Object.entries(outputs).map(([name, process]) => [name, process.output().length]));
    await redis.stop();
    const down = await client.callTool({ name: 'plant-a.x', arguments: { tag: 'during-outage' } });
    assert.equal(down.isError, true);
    assert.match(text(down), /^Site plant-a could not be reached: storage unavailable \(\w+\)\.$/);
    const downB = await client.callTool({ name: 'plant-b.y', arguments: { n: 99 } });
    assert.equal(downB.isError, true);
    assert.match(text(downB), /^Site plant-b could not be reached/);

    await redis.restart();
    for (const [name, process] of Object.entries(outputs)) await process.waitForOutput('redis storage reconnected', since[name]);
    // Listening again: each edge to its calls, both hubs to the answers (the spy's pattern is not counted).
    for (let attempt = 0; ; attempt += 1) {
      assert.ok(attempt < 300, 'the edges and hubs never subscribed again after the outage');
      const ready = (await listeners(channel('plant-a', 'calls'))) >= 1 && (await listeners(channel('plant-b', 'calls'))) >= 1
        && (await listeners(channel('plant-a', 'answers'))) >= 2 && (await listeners(channel('plant-b', 'answers'))) >= 2;
      if (ready) break;
      await delay(100);
    }
    await listUntil(client, (listed) => listed.includes('plant-a.x') && listed.includes('plant-b.y'), 'listed both sites after the outage');
    assert.equal(text(await client.callTool({ name: 'plant-a.x', arguments: { tag: 'recovered' } })), 'x done recovered at plant-a');
    assert.equal(text(await client.callTool({ name: 'plant-b.y', arguments: { n: 100 } })), 'y done 100 at plant-b');
    const edgeLog = plantA.output().slice(since.plantA);
    assert.equal(count(edgeLog, /x-ran tag=during-outage /), 0);
    assert.equal(count(edgeLog, /x-ran tag=recovered /), 1);
    assert.equal(count(edgeLog, /x-ran /), 1);
    assert.equal(count(plantB.output().slice(since.plantB), /y-ran /), 1);
  });
});
