import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { answer, flowServer, router, runtime, storage, tab, tool } from '../support/flows.js';
import { connect, waitForEndpoint } from '../support/mcp-http.js';
import { nodeRedPackage, startNodeRed, type FlowNode, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';

/**
 * One Node-RED serving a tool whose input schema has a catastrophic pattern, and a hub endpoint whose
 * edge site is played by this test through Redis (an edge announcing a catastrophic output-schema
 * pattern and answering the string that makes it backtrack). A hostile call must get its refusal, and
 * a call made while it is checked must be answered as if nothing happened: on V8's backtracking engine
 * the hostile string blocks Node-RED's only thread for hours.
 */

const PREFIX = 'mcptest';
const SITE = 'plant-x';
const CATASTROPHIC = '^(a+)+$';
const HOSTILE = `${'a'.repeat(40)}!`;
/**
 * How long the harmless call may take while the hostile one is checked. On the backtracking engine the
 * hostile call blocks Node-RED for hours, so any finite bound tells the two apart; this one leaves room
 * for a loaded test machine.
 */
const PROMPT_MS = 5_000;
const RESPOND = `msg.topic = 'mcp-tool-response';`;

function flows(port: number): FlowNode[] {
  return [
    tab(),
    runtime('rt', port),
    storage('st', 'redis', 'MCP_TEST_REDIS_URL'),
    flowServer('fs', { runtime: 'rt', path: '/mcp', wires: ['route'] }),
    router('route', { lookup: 'lookup-fn', ping: 'ping-fn' }),
    tool('t-lookup', { name: 'lookup', endpoint: '/mcp', input: { type: 'object', properties: { code: { type: 'string', pattern: CATASTROPHIC } }, required: ['code'] } }),
    answer('lookup-fn', `node.warn('lookup-ran');\n${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'found ' + msg.payload.arguments.code };\nreturn msg;`, 'fs'),
    tool('t-ping', { name: 'ping', endpoint: '/mcp' }),
    answer('ping-fn', `${RESPOND}\nmsg.payload = { executionId: msg.payload.executionId, result: 'pong' };\nreturn msg;`, 'fs'),
    { ...flowServer('hub', { runtime: 'rt', path: '/hub', wires: [] }), storage: 'st', hubSites: SITE },
  ];
}

const text = (result: any) => (result.content as Array<{ text: string }>).map((part) => part.text).join('\n');

/** Resolves with the call's result and how long it took, or rejects once `limitMs` passed without one. */
async function timed<T>(call: Promise<T>, limitMs: number, what: string): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} got no answer within ${limitMs} ms: Node-RED is blocked`)), limitMs);
  });
  try {
    const value = await Promise.race([call, limit]);
    return { value, ms: Date.now() - start };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the hostile call, and while it is being checked makes a harmless call on `caller`, which must be
 * answered promptly (Node-RED is not blocked); returns the hostile call's result, for the test to judge.
 */
async function pingDuringHostileCall(hostileCall: Promise<any>, what: string, caller: Client): Promise<any> {
  const hostile = timed(hostileCall, 60_000, what);
  hostile.catch(() => undefined);
  // The hostile call goes first; the harmless one follows while it is being checked.
  await delay(200);
  const ping = await timed(caller.callTool({ name: 'ping', arguments: {} }), PROMPT_MS, 'a harmless call made meanwhile');
  assert.equal(text(ping.value), 'pong');
  return (await hostile).value;
}

describe(`hostile schema patterns cannot freeze Node-RED, on ${nodeRedPackage}`, () => {
  let redis: RedisServer;
  let nodeRed: NodeRedProcess;
  let edge: Redis;
  let edgeCalls: Redis;
  let announcer: NodeJS.Timeout | undefined;
  let url: string;
  let hubUrl: string;
  const clients: Client[] = [];
  const channel = (kind: 'announce' | 'calls' | 'answers') => `${PREFIX}:edge:${SITE}:${kind}`;

  before(async () => {
    redis = await startRedis();
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    hubUrl = `http://127.0.0.1:${port}/hub`;
    nodeRed = await startNodeRed(flows(port), { env: { MCP_TEST_REDIS_URL: redis.url } });
    await waitForEndpoint(url);
    await waitForEndpoint(hubUrl);
  });

  after(async () => {
    if (announcer) clearInterval(announcer);
    for (const open of clients) await open.close().catch(() => undefined);
    edge?.disconnect();
    edgeCalls?.disconnect();
    await nodeRed?.stop();
    await redis?.stop();
  });

  it("refuses a caller's hostile argument with a clear invalid-arguments result and keeps answering other calls", async () => {
    const hostileCaller = await connect(url, 'modern');
    const otherCaller = await connect(url, 'legacy');
    clients.push(hostileCaller, otherCaller);
    const since = nodeRed.output().length;

    const refused = await pingDuringHostileCall(hostileCaller.callTool({ name: 'lookup', arguments: { code: HOSTILE } }), 'the hostile call', otherCaller);
    assert.equal(refused.isError, true);
    assert.equal(text(refused), `Invalid arguments for tool "lookup":\n- code: must match pattern "${CATASTROPHIC}"`);
    assert.doesNotMatch(nodeRed.output().slice(since), /lookup-ran/, 'the flow never saw the refused call');
    // A matching argument still passes the same pattern.
    assert.equal(text(await hostileCaller.callTool({ name: 'lookup', arguments: { code: 'aaaa' } })), 'found aaaa');
  });

  it("checks an edge's hostile answer against the catastrophic output schema it announced without blocking the hub", async () => {
    edge = new Redis(redis.url);
    edgeCalls = new Redis(redis.url);
    const listing = { name: 'read', description: 'reads a code', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: CATASTROPHIC } } } };
    const announce = () => edge.publish(channel('announce'), JSON.stringify({ t: 'announce', site: SITE, instance: 'hostile-1', tools: [{ listing, timeoutMs: 60_000, maxDurationMs: 60_000 }] }));
    // The edge this test plays answers every call with the string that makes the pattern backtrack.
    edgeCalls.on('message', (_name: string, message: string) => {
      const call = JSON.parse(message) as { t: string; id: string };
      if (call.t !== 'call') return;
      void edge.publish(channel('answers'), JSON.stringify({ t: 'answer', id: call.id, result: { content: [{ type: 'text', text: HOSTILE }], structuredContent: { code: HOSTILE } } }));
    });
    await edgeCalls.subscribe(channel('calls'));
    await announce();
    announcer = setInterval(() => void announce(), 1_500);

    const hubClient = await connect(hubUrl, 'modern');
    const caller = await connect(url, 'legacy');
    clients.push(hubClient, caller);
    let name: string | undefined;
    for (let attempt = 0; attempt < 100 && name === undefined; attempt += 1) {
      name = (await hubClient.listTools()).tools.find((listed) => listed.description === 'reads a code')?.name;
      if (name === undefined) await delay(100);
    }
    assert.ok(name, 'the hub never listed the edge tool');

    const refused = await pingDuringHostileCall(hubClient.callTool({ name, arguments: {} }), 'the call answered with the hostile string', caller);
    assert.equal(refused.isError, true);
    assert.match(text(refused), /returned structured content that does not match its output schema: \/code: must match pattern "\^\(a\+\)\+\$"/);
  });
});
