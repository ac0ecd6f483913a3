import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { answer, oauthServer, oidcAuth, runtimeBehind, sentinelStorage, tab, tool } from '../support/flows.js';
import { startLoad } from '../support/failover-load.js';
import { postJsonRpc } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode } from '../support/node-red-process.js';
import { claudeLikeDocument } from '../support/oauth-client.js';
import { redisServerOnPath } from '../support/redis-server.js';
import { startSentinelDeployment, type SentinelDeployment } from '../support/redis-sentinel.js';
import { startSignedInPair, Unclear, type SignedInPair } from '../support/signed-in-pair.js';

/**
 * Two Node-RED instances behind one Base URL on a real Redis Sentinel deployment (primary, two
 * replicas, three sentinels on loopback). While tool calls and refresh-token rotations run against
 * both, the primary is switched (SENTINEL FAILOVER), then killed (SIGKILL). Counted per failover:
 * answers, clear retryable errors (503 with Retry-After), anything else, hangs, and calls that ran
 * twice. After each, the same sign-in keeps working: no new sign-in.
 */

const NEEDS_REDIS = !redisServerOnPath() && 'needs redis-server on PATH (it runs the sentinels too)';
const CLIENT_ID = 'https://client.test/oauth/sentinel.json';
const SECRET = 'bridge-secret-for-sentinel-failover';
const REFRESH_KEY = randomBytes(32).toString('hex');
// The palette answers within a command timeout (2 s) plus a replica wait; more than this is a hang.
const HANG_AFTER_MS = 8_000;

function instanceFlows(port: number, baseUrl: string, issuer: string, group: string, instance: string): FlowNode[] {
  return [
    tab(),
    runtimeBehind('rt', port, baseUrl),
    sentinelStorage('store', 'MCP_TEST_SENTINELS', group),
    oidcAuth('auth', { storage: 'store', issuer, clientId: 'bridge', secretEnv: 'MCP_TEST_SECRET', pinned: [claudeLikeDocument(CLIENT_ID)] }),
    oauthServer('fs', { runtime: 'rt', auth: 'auth', path: '/tools', groups: 'mcp-users', wires: ['mark-fn'] }),
    // Says in the log which call reached it, so the test can count calls that ran twice.
    answer('mark-fn', `node.warn('mark reached the flow: ' + msg.payload.arguments.marker);\nmsg.topic = 'mcp-tool-response';\nmsg.payload = { executionId: msg.payload.executionId, result: '${instance}' };\nreturn msg;`, 'fs'),
    tool('t-mark', { name: 'mark', endpoint: '/tools', input: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] } }),
  ];
}

/** The refresh grant's poll for another request's rotation (REFRESH_TIMING.pollTimeoutMs). */
const REFRESH_POLL_MS = 5_000;

/** Why refreshes were answered 503, from the two instances' oauth.refresh audit lines after `since`. */
function refusalReasons(pair: SignedInPair, since: readonly number[]): string {
  const reasons = new Map<string, number>();
  for (const [i, process] of [pair.one, pair.two].entries()) {
    for (const [, reason] of process.output().slice(since[i]).matchAll(/"event":"oauth\.refresh","outcome":"transient".*?"reason":"([a-z_]+)"/g)) {
      reasons.set(reason!, (reasons.get(reason!) ?? 0) + 1);
    }
  }
  return [...reasons].map(([reason, count]) => `${count}× ${reason}`).join(', ') || 'none';
}

const sinceBreak = (at: number | undefined, started: number) => (at === undefined ? 'no failure' : `${at - started} ms`);

describe(`two Node-RED instances on Redis Sentinel through failovers, on ${nodeRedPackage}`, { skip: NEEDS_REDIS }, () => {
  let deployment: SentinelDeployment;
  let pair: SignedInPair;

  before(async () => {
    deployment = await startSentinelDeployment();
    pair = await startSignedInPair({ clientId: CLIENT_ID, secret: SECRET, refreshKey: REFRESH_KEY, env: { MCP_TEST_SENTINELS: deployment.sentinels }, flows: (port, baseUrl, issuer, instance) => instanceFlows(port, baseUrl, issuer, deployment.name, instance) });
  });
  after(async () => {
    await pair?.stop();
    await deployment?.stop();
  });

  /** One tool call; resolves when answered, throws Unclear for anything but a 503 with Retry-After. */
  async function call(origin: string, marker: string): Promise<void> {
    const response = await postJsonRpc(`${origin}/tools`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mark', arguments: { marker } } }, { authorization: `Bearer ${pair.accessToken}` });
    if (response.status === 200 && typeof response.json().result?.content?.[0]?.text === 'string') return;
    // What the 503 says (storage unavailable, busy…) shows in a failure report of the load.
    if (response.status === 503 && response.headers['retry-after']) throw new Error(`retryable: ${origin} ${response.body.slice(0, 120)}`);
    throw new Unclear(`call ${marker}: ${response.status} ${response.body.slice(0, 200)}`);
  }

  const refresh = (origin: string) => pair.refresh(origin);

  for (const [title, breakIt, round] of [
    ['SENTINEL FAILOVER', (d: SentinelDeployment) => d.failover(), 1],
    ['SIGKILL of the primary', async (d: SentinelDeployment) => (await d.killPrimary()).promotedPort, 2],
  ] as const) {
    it(`serves calls and refreshes through ${title}: clear retryable errors only, no hang, nothing twice, no new sign-in`, async () => {
      await deployment.ready();
      const epoch = await deployment.configEpoch();
      const since = [pair.one.output().length, pair.two.output().length];
      const answered = new Set<string>();
      const isClear = (error: unknown) => error instanceof Error && !(error instanceof Unclear);
      const calls = startLoad({
        workers: 6,
        hangAfterMs: HANG_AFTER_MS,
        isClear,
        pauseMs: 5,
        operation: async (worker, sequence) => {
          const marker = `${round}-${worker}-${sequence}`;
          await call(pair.origins[(worker + sequence) % 2]!, marker);
          answered.add(marker);
        },
      });
      const refreshes = startLoad({ workers: 1, hangAfterMs: HANG_AFTER_MS, isClear, pauseMs: 100, operation: (_, sequence) => refresh(pair.origins[sequence % 2]!) });
      let started = 0;
      let promotedMs = 0;
      let servedMs = 0;
      try {
        await calls.successes(100);
        started = Date.now();
        await breakIt(deployment);
        promotedMs = Date.now() - started;
        // Every worker served again (not only the load as a whole), then the load goes on for a while.
        await Promise.all([calls.everyWorkerServed(3), refreshes.everyWorkerServed(2)]);
        servedMs = Date.now() - started;
        await Promise.all([calls.successes(200), refreshes.successes(5)]);
      } catch (error) {
        // A load left running would retry against stopped servers forever and keep this file's process alive.
        await Promise.all([calls.stop(), refreshes.stop()]);
        throw error;
      }
      const [callCounts, refreshCounts] = [await calls.stop(), await refreshes.stop()];

      assert.equal(callCounts.hangs + refreshCounts.hangs, 0, 'nothing hung');
      assert.deepEqual([...callCounts.otherErrors, ...refreshCounts.otherErrors], [], 'every failure was a 503 with Retry-After');
      assert.ok(callCounts.recovered && refreshCounts.recovered, 'calls and refreshes are served again');
      // Refreshes come back with the storage, not a claim deadline (60 s) later: a refresh that started
      // waiting for another's rotation just before the storage returned may wait out its poll (5 s).
      assert.ok(
        refreshCounts.longestOutageMs <= callCounts.longestOutageMs + REFRESH_POLL_MS,
        `refreshes were unserved for ${refreshCounts.longestOutageMs} ms, tool calls for ${callCounts.longestOutageMs} ms`,
      );
      pair.assertEachRanOnce([/mark reached the flow: (\S+)/g], answered, since as [number, number]);
      // The sign-in from before both failovers still works on both instances, refreshed or not.
      await call(pair.origins[0], `${round}-after-0`);
      await call(pair.origins[1], `${round}-after-1`);
      await refresh(pair.origins[1]);
      // Each instance logged the failover once: once per promotion (under load the sentinels may
      // promote twice for one SIGKILL), never once per failed call.
      const promotions = (await deployment.configEpoch()) - epoch;
      assert.ok(promotions >= 1, 'the sentinels promoted a replica');
      for (const [i, name, process] of [[0, 'one', pair.one], [1, 'two', pair.two]] as const) {
        const lines = process.output().slice(since[i]).match(/redis storage failover: the primary is now.*/g) ?? [];
        assert.equal(lines.length, promotions, `instance ${name} logged each of ${promotions} promotion(s) once:\n${lines.join('\n')}`);
      }
      console.log(
        `# ${title}: tool calls ${callCounts.ok} answered, ${callCounts.clearErrors} 503 with Retry-After, ${callCounts.hangs} hung, 0 ran twice, ` +
          `longest unserved ${callCounts.longestOutageMs} ms; refreshes ${refreshCounts.ok} rotated, ${refreshCounts.clearErrors} 503 with Retry-After ` +
          `(${refusalReasons(pair, since)}), longest unserved ${refreshCounts.longestOutageMs} ms; promotion seen after ${promotedMs} ms, ` +
          `served again after ${sinceBreak(callCounts.lastRecoveryAt, started)} (calls) and ${sinceBreak(refreshCounts.lastRecoveryAt, started)} (refreshes); ` +
          `every caller served again ${servedMs} ms after the break`,
      );
    });
  }
});
