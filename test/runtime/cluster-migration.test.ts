import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { answer, clusterStorage, flowServer, oauthServer, oidcAuth, runtimeBehind, tab, tool } from '../support/flows.js';
import { startLoad } from '../support/failover-load.js';
import { postJsonRpc } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode } from '../support/node-red-process.js';
import { claudeLikeDocument } from '../support/oauth-client.js';
import { startClusterDeployment, type ClusterDeployment } from '../support/redis-cluster.js';
import { redisServerOnPath } from '../support/redis-server.js';
import { startSignedInPair, Unclear, type SignedInPair } from '../support/signed-in-pair.js';

/**
 * Two Node-RED instances behind one Base URL on a real Redis Cluster (three primaries with a replica
 * each, on loopback). Both serve a signed-in endpoint whose tools are a local one (`mark`) and one
 * relayed to an edge (site plant-a, on instance pair.two) through sharded pub/sub. While tool calls,
 * relayed calls and refresh-token rotations run against both, thousands of slots migrate between the
 * primaries (ASK during the move, MOVED after); then the primary of the edge's calls channel is
 * killed (SIGKILL) and its replica promoted. Counted each time: answers, clear errors (503 with
 * Retry-After, or a relayed call's error result naming the site), anything else, hangs, and calls
 * that ran twice. After each, the same sign-in keeps working: no new sign-in.
 */

const NEEDS_REDIS = !redisServerOnPath() && 'needs redis-server and redis-cli on PATH';
const CLIENT_ID = 'https://client.test/oauth/cluster.json';
const SECRET = 'bridge-secret-for-cluster-migration';
const REFRESH_KEY = randomBytes(32).toString('hex');
// A relayed call's answer lost in a move ends at the tool's 4 s limit; more than this is a hang.
const HANG_AFTER_MS = 8_000;
// Slots moved per step: with the keys of the load in them, about 8 s a step on a loaded 2-core machine.
const SLOTS = 1_000;

function instanceFlows(port: number, baseUrl: string, issuer: string, instance: string): FlowNode[] {
  const flows: FlowNode[] = [
    tab(),
    runtimeBehind('rt', port, baseUrl),
    clusterStorage('store', 'MCP_TEST_CLUSTER_NODES'),
    oidcAuth('auth', { storage: 'store', issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    { ...oauthServer('fs', { runtime: 'rt', auth: 'auth', path: '/tools', groups: 'mcp-users', wires: ['mark-fn'] }), storage: 'store', hubSites: 'plant-a' },
    // Says in the log which call reached it, so the test can count calls that ran twice.
    answer('mark-fn', `node.warn('mark reached the flow: ' + msg.payload.arguments.marker);\nmsg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: '${instance}' };\nreturn msg;`, 'fs'),
    tool('t-mark', { name: 'mark', endpoint: '/tools', input: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] } }),
  ];
  // Telemetry says what the storage talks to (logged once, not per call).
  flows.push(
    { id: 'metrics', type: 'mcp-server-metrics', z: 'tab-tests', name: '', runtime: 'rt', x: 100, y: 300, wires: [['telemetry-fn']] },
    answer('telemetry-fn', `if (!context.get('told')) { context.set('told', true); node.warn('telemetry redisRole=' + msg.payload.redisRole + ' redisSwitches=' + msg.payload.redisSwitches); }\nreturn null;`, ''),
  );
  if (instance !== 'two') return flows;
  return [
    ...flows,
    { ...flowServer('edge', { runtime: 'rt', path: '/edge', wires: ['x-fn'] }), storage: 'store', edgeSite: 'plant-a' },
    tool('t-x', { name: 'x', endpoint: '/edge', timeout: 4, input: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] } }),
    answer('x-fn', `node.warn('x reached the edge: ' + msg.payload.arguments.marker);\nmsg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: 'x at plant-a' };\nreturn msg;`, 'edge'),
  ];
}

describe(`two Node-RED instances on a Redis Cluster through slot migrations and a failover, on ${nodeRedPackage}`, { skip: NEEDS_REDIS }, () => {
  let deployment: ClusterDeployment;
  let pair: SignedInPair;

  before(async () => {
    deployment = await startClusterDeployment({ replicas: 1 });
    pair = await startSignedInPair({ clientId: CLIENT_ID, secret: SECRET, refreshKey: REFRESH_KEY, env: { MCP_TEST_CLUSTER_NODES: deployment.nodes }, flows: (port, baseUrl, issuer, instance) => instanceFlows(port, baseUrl, issuer, instance) });
  });
  after(async () => {
    await pair?.stop();
    await deployment?.stop();
  });

  const relayErrors = new Map<string, number>();
  let callsRefused = 0;

  /** One tool call; resolves when answered, throws Unclear for anything but a clear, retryable failure. */
  async function call(origin: string, name: string, marker: string): Promise<void> {
    const response = await postJsonRpc(`${origin}/tools`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { marker } } }, { authorization: `Bearer ${pair.accessToken}` });
    const result = response.status === 200 ? response.json().result : undefined;
    const text = result?.content?.[0]?.text;
    if (result && !result.isError && typeof text === 'string') return;
    if (response.status === 503 && response.headers['retry-after']) {
      callsRefused += 1;
      throw new Error(`retryable: ${origin} ${response.body.slice(0, 120)}`);
    }
    // A relayed call the hub could not deliver, or whose answer did not come: an error result that says so.
    if (result?.isError && typeof text === 'string' && /plant-a|time/i.test(text)) {
      const kind = text.replace(/[0-9a-f-]{36}/g, '…').slice(0, 90);
      relayErrors.set(kind, (relayErrors.get(kind) ?? 0) + 1);
      throw new Error(`relay failed clearly: ${kind}`);
    }
    throw new Unclear(`${name} ${marker}: ${response.status} ${response.body.slice(0, 200)}`);
  }

  const refresh = (origin: string) => pair.refresh(origin);

  /**
   * Mixed load (6 clients of tool calls, a third relayed to the edge; 1 client rotating its refresh
   * token) on both instances while `breakIt` runs; then waits for 100 more calls and 3 refreshes and
   * checks what every test here requires: no hang, clear errors only, served again at the end,
   * nothing ran twice, and the sign-in from before still works on both instances, relayed calls too.
   */
  async function underLoad(label: string, breakIt: () => Promise<void>) {
    relayErrors.clear();
    callsRefused = 0;
    const since: [number, number] = [pair.one.output().length, pair.two.output().length];
    const answered = new Set<string>();
    const isClear = (error: unknown) => error instanceof Error && !(error instanceof Unclear);
    const calls = startLoad({
      workers: 6,
      hangAfterMs: HANG_AFTER_MS,
      isClear,
      pauseMs: 5,
      operation: async (worker, sequence) => {
        const marker = `${label}-${worker}-${sequence}`;
        await call(pair.origins[(worker + sequence) % 2]!, worker % 3 === 0 ? 'plant-a.x' : 'mark', marker);
        answered.add(marker);
      },
    });
    const refreshes = startLoad({ workers: 1, hangAfterMs: HANG_AFTER_MS, isClear, pauseMs: 100, operation: (_, sequence) => refresh(pair.origins[sequence % 2]!) });
    await calls.successes(100);
    const started = Date.now();
    try {
      await breakIt();
      // Every client served again (relayed calls too: the edge's subscriptions moved), then some more.
      await Promise.all([calls.everyWorkerServed(3), refreshes.everyWorkerServed(2)]);
      await Promise.all([calls.successes(100), refreshes.successes(1)]);
    } catch (error) {
      // No load of a failed test may run on into the next one.
      await Promise.all([calls.stop(), refreshes.stop()]);
      throw error;
    }
    const [callCounts, refreshCounts] = [await calls.stop(), await refreshes.stop()];

    const relayed = [...answered].filter((marker) => Number(marker.split('-')[1]) % 3 === 0).length;
    const summary =
      `tool calls ${callCounts.ok} answered (${relayed} relayed to the edge), ` +
      `${callCounts.clearErrors} clear errors [${callsRefused}× 503 with Retry-After; ${[...relayErrors].map(([kind, count]) => `${count}× ${kind}`).join('; ')}], ${callCounts.hangs} hung, 0 ran twice, ` +
      `longest unserved ${callCounts.longestOutageMs} ms; refreshes ${refreshCounts.ok} rotated, ${refreshCounts.clearErrors} 503 with Retry-After, longest unserved ${refreshCounts.longestOutageMs} ms`;
    assert.equal(callCounts.hangs + refreshCounts.hangs, 0, `nothing hung: ${summary}`);
    assert.deepEqual([...callCounts.otherErrors, ...refreshCounts.otherErrors], [], 'every failure was clear and retryable');
    assert.ok(callCounts.recovered && refreshCounts.recovered, `calls and refreshes are served at the end: ${summary}`);
    pair.assertEachRanOnce([/mark reached the flow: (\S+)/g, /x reached the edge: (\S+)/g], answered, since);
    await call(pair.origins[0], 'mark', `${label}-after-0`);
    await call(pair.origins[1], 'plant-a.x', `${label}-after-1`);
    await refresh(pair.origins[1]);
    return { started, since, callCounts, refreshCounts, summary };
  }

  it('serves local and relayed calls and refreshes while slots migrate: clear errors only, no hang, nothing twice, no new sign-in', async () => {
    // The relayed tool is listed on both instances once the edge's announcement reached each.
    for (const origin of pair.origins) await waitForTool(origin, 'plant-a.x', pair.accessToken);
    const [a, b, c] = deployment.ports as [number, number, number];
    let moves = '';
    const { started, summary } = await underLoad('move', async () => {
      const firstMs = await deployment.reshard(a, b, SLOTS);
      const secondMs = await deployment.reshard(b, c, SLOTS);
      moves = `${firstMs} + ${secondMs} ms`;
    });
    for (const process of [pair.one, pair.two]) assert.match(process.output(), /telemetry redisRole=cluster redisSwitches=0/);
    for (const process of [pair.one, pair.two]) assert.equal((process.output().match(/redis storage cluster failover/g) ?? []).length, 0, 'a migration is not a failover');
    console.log(`# slot migration (2 × ${SLOTS} slots, ${moves}, ${Date.now() - started} ms with the calls after): ${summary}`);
  });

  it('serves local and relayed calls and refreshes through SIGKILL of a primary: clear errors only, no hang, nothing twice, no new sign-in', async () => {
    // The primary the edge's calls channel lives on: its sharded subscription must move to the replica promoted.
    const victim = await deployment.primaryOf('mcp:edge:plant-a:calls');
    let promotion = { promotedPort: 0, promotedMs: 0 };
    const { started, since, callCounts, summary } = await underLoad('kill', async () => {
      promotion = await deployment.killPrimary(victim);
      console.log(`# cluster primary ${victim} killed; replica ${promotion.promotedPort} serves its slots after ${promotion.promotedMs} ms`);
    });
    assert.notEqual(promotion.promotedPort, 0, 'a replica took over');
    // Each instance logged the failover once, not once per failed call.
    for (const [i, process] of [pair.one, pair.two].entries()) {
      const lines = process.output().slice(since[i]).match(/redis storage cluster failover: the primaries are now.*/g) ?? [];
      assert.equal(lines.length, 1, `instance ${i + 1} logged the failover once:\n${lines.join('\n')}`);
    }
    const servedAgain = callCounts.lastRecoveryAt === undefined ? 'no failure' : `${callCounts.lastRecoveryAt - started} ms`;
    console.log(`# SIGKILL of a cluster primary (the edge channel's): replica promoted after ${promotion.promotedMs} ms, calls served again after ${servedAgain}; ${summary}`);
  });
});

async function waitForTool(origin: string, name: string, token: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await postJsonRpc(`${origin}/tools`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { authorization: `Bearer ${token}` });
    const tools: Array<{ name: string }> = response.status === 200 ? (response.json().result?.tools ?? []) : [];
    if (tools.some((listed) => listed.name === name)) return;
    if (Date.now() > deadline) throw new Error(`${name} was not listed within 20 s: ${response.status} ${response.body.slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
