import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startClusterDeployment, type ClusterDeployment } from '../support/redis-cluster.js';
import { redisServerOnPath } from '../support/redis-server.js';
import { startSentinelDeployment, type SentinelDeployment } from '../support/redis-sentinel.js';
import { flowOf, flowServerDef, freePort, helper, lastStatus, messagesOf, runtimeDef, storageDef, toolDef, usePalette, waitFor, type TestNode } from './node-helper.js';

/**
 * Health you can see (issue #29): an endpoint on Redis Sentinel or Cluster storage names what it
 * talks to in its status, and after a failover says when; the storage node logs the failover once.
 * Real servers: a Sentinel group (primary, two replicas, three sentinels) and a three-primary
 * cluster with a replica each, on loopback.
 */

const NEEDS_REDIS = !redisServerOnPath() && 'needs redis-server and redis-cli on PATH';
const UTC_TIME = /\d\d:\d\d:\d\d UTC/;

describe('endpoint status and log through a Redis failover', { skip: NEEDS_REDIS }, () => {
  const nodes = usePalette(['mcp-runtime', 'mcp-flow-server', 'mcp-tool-registry', 'mcp-redis']);

  /** A Local endpoint whose tasks live in `storage`; resolves once it is green. */
  async function serveOn(storage: Record<string, unknown>): Promise<{ server: TestNode; store: TestNode }> {
    const port = await freePort();
    await helper.load(nodes, flowOf(runtimeDef('rt', port), storageDef('store', storage), flowServerDef('srv', 'rt', [[]], { storage: 'store' }), toolDef('t1', 'echo')));
    const server = helper.getNode('srv');
    await waitFor(() => lastStatus(server)?.fill === 'green' && /redis/.test(lastStatus(server)?.text ?? ''), 'a green status naming redis', 20_000);
    return { server, store: helper.getNode('store') };
  }

  describe('Sentinel', () => {
    let deployment: SentinelDeployment;
    before(async () => {
      deployment = await startSentinelDeployment();
    });
    after(() => deployment?.stop());

    it('names the primary, and after SENTINEL FAILOVER the new one and since when; the failover is logged once', async () => {
      const { server, store } = await serveOn({ mode: 'sentinel', sentinels: deployment.sentinels, sentinelName: deployment.name });
      const before = await deployment.primaryPort();
      assert.match(lastStatus(server)!.text!, new RegExp(`· redis primary 127\\.0\\.0\\.1:${before}$`));
      const after = await deployment.failover();
      const status = await waitFor(
        () => lastStatus(server)?.fill === 'green' && lastStatus(server)!.text!.includes(`127.0.0.1:${after}`) && lastStatus(server),
        'the status naming the new primary',
        20_000,
      );
      assert.match(status.text!, new RegExp(`· redis primary 127\\.0\\.0\\.1:${after} since ${UTC_TIME.source} \\(failover\\)$`));
      const failovers = messagesOf(store, 'warn').filter((line) => line.startsWith('redis storage failover'));
      assert.deepEqual(failovers, [`redis storage failover: the primary is now 127.0.0.1:${after} (was 127.0.0.1:${before})`]);
    });
  });

  describe('Cluster', () => {
    let deployment: ClusterDeployment;
    before(async () => {
      deployment = await startClusterDeployment({ replicas: 1 });
    });
    after(() => deployment?.stop());

    it('names the cluster, and after SIGKILL of a primary when a failover replaced it, without a state change; logged once', async () => {
      const { server, store } = await serveOn({ mode: 'cluster', clusterNodes: deployment.nodes });
      assert.match(lastStatus(server)!.text!, /· redis cluster, 3 primaries$/);
      const states: string[] = [];
      store.store.onState((state: string) => states.push(state));
      const { promotedPort } = await deployment.killPrimary(deployment.ports[1]!);
      const status = await waitFor(() => /failover/.test(lastStatus(server)?.text ?? '') && lastStatus(server), 'the status naming the failover', 20_000);
      assert.match(status.text!, new RegExp(`· redis cluster, 3 primaries, failover at ${UTC_TIME.source}$`));
      // The cluster connection stayed ready throughout: the status was redrawn for the new primaries alone.
      assert.deepEqual(states, []);
      const failovers = messagesOf(store, 'warn').filter((line) => line.startsWith('redis storage cluster failover'));
      assert.equal(failovers.length, 1, failovers.join(' | '));
      assert.ok(failovers[0]!.includes(`127.0.0.1:${promotedPort}`), failovers[0]);
    });
  });
});
