import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { Cluster } from 'ioredis';
import type { Logger } from '../../lib/core/logger.js';
import { ClusterFollower } from '../../lib/storage/cluster-follower.js';

/** Stands in for ioredis's Cluster: what ClusterFollower reads of it (its primaries, its `refresh` events). */
class FakeCluster extends EventEmitter {
  primaries: number[] = [];

  nodes(role: string): Array<{ options: { host: string; port: number } }> {
    assert.equal(role, 'master');
    return this.primaries.map((port) => ({ options: { host: '127.0.0.1', port } }));
  }

  /** One slot refresh that saw these primaries. */
  refresh(...ports: number[]): void {
    this.primaries = ports;
    this.emit('refresh');
  }
}

function follow(): { cluster: FakeCluster; follower: ClusterFollower; warnings: string[]; infos: string[] } {
  const cluster = new FakeCluster();
  const warnings: string[] = [];
  const infos: string[] = [];
  const logger: Logger = { debug() {}, info: (line) => infos.push(line), warn: (line) => warnings.push(line), error() {} };
  const follower = new ClusterFollower(cluster as unknown as Cluster, logger);
  return { cluster, follower, warnings, infos };
}

describe('ClusterFollower', () => {
  it('names the primaries at once on the first refresh, without calling it a failover', () => {
    const { cluster, follower, warnings, infos } = follow();
    cluster.refresh(7002, 7001, 7000);
    assert.equal(follower.primary?.address, '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002');
    assert.equal(follower.primary?.switches, 0);
    assert.deepEqual(warnings, []);
    assert.equal(infos.length, 1);
  });

  it('logs and counts one failover once two refreshes in a row agree on the new primaries', () => {
    const { cluster, follower, warnings } = follow();
    cluster.refresh(7000, 7001, 7002);
    cluster.refresh(7000, 7001, 7005);
    assert.equal(follower.primary?.switches, 0, 'one refresh is not enough');
    assert.deepEqual(warnings, []);
    cluster.refresh(7000, 7001, 7005);
    assert.equal(follower.primary?.switches, 1);
    assert.equal(follower.primary?.address, '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7005');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /cluster failover: the primaries are now 127\.0\.0\.1:7000,127\.0\.0\.1:7001,127\.0\.0\.1:7005 \(were .*7002\)/);
  });

  it('logs a failover whose refreshes flip between the old and new primaries while it settles once', () => {
    const { cluster, follower, warnings } = follow();
    cluster.refresh(7000, 7001, 7002);
    // Nodes that have not yet heard of the promotion still answer with the old primary.
    for (const ports of [[7000, 7001, 7005], [7000, 7001, 7002], [7000, 7001, 7005], [7000, 7001, 7002], [7000, 7001, 7005], [7000, 7001, 7005], [7000, 7001, 7005]]) {
      cluster.refresh(...ports);
    }
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.equal(follower.primary?.switches, 1);
    assert.equal(follower.primary?.address, '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7005');
  });

  it('logs a second failover later as a second one', () => {
    const { cluster, follower, warnings } = follow();
    cluster.refresh(7000, 7001, 7002);
    cluster.refresh(7000, 7001, 7005);
    cluster.refresh(7000, 7001, 7005);
    cluster.refresh(7000, 7001, 7002);
    cluster.refresh(7000, 7001, 7002);
    assert.equal(warnings.length, 2);
    assert.equal(follower.primary?.switches, 2);
    assert.equal(follower.primary?.address, '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002');
  });

  it('takes a refresh that agrees with the current primaries as settled, dropping a one-off other answer', () => {
    const { cluster, follower, warnings } = follow();
    cluster.refresh(7000, 7001, 7002);
    cluster.refresh(7000, 7001, 7005);
    cluster.refresh(7000, 7001, 7002);
    // The one-off answer before is forgotten: it needs two in a row again.
    cluster.refresh(7000, 7001, 7005);
    assert.deepEqual(warnings, []);
    assert.equal(follower.primary?.switches, 0);
  });

  it('ignores a refresh that names no primary, and stops listening when closed', () => {
    const { cluster, follower, warnings } = follow();
    cluster.refresh(7000, 7001, 7002);
    cluster.refresh();
    cluster.refresh();
    assert.equal(follower.primary?.address, '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002');
    follower.close();
    assert.equal(cluster.listenerCount('refresh'), 0);
    cluster.refresh(7000, 7001, 7005);
    cluster.refresh(7000, 7001, 7005);
    assert.deepEqual(warnings, []);
  });
});
