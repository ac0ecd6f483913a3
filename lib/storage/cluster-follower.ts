import type { Cluster } from 'ioredis';
import type { Logger } from '../core/logger.js';
import { clusterPrimaries } from './cluster-connection.js';
import { PrimaryWatch, type StorePrimary } from './primary-watch.js';

/**
 * What a Cluster-mode store keeps track of beside its connection: the cluster's primaries, read from
 * the client's slot map at each refresh (every second, and after a MOVED), so the status names them
 * and a failover (a replica promoted in place of a primary) is logged once. A slot migration moves
 * slots between the same primaries: not a switch, not logged.
 */
export class ClusterFollower {
  private readonly watch: PrimaryWatch;
  private readonly cluster: Cluster;
  private readonly onRefresh = () => this.connected();

  constructor(cluster: Cluster, logger: Logger) {
    this.cluster = cluster;
    this.watch = new PrimaryWatch(logger, 'cluster');
    cluster.on('refresh', this.onRefresh);
  }

  get primary(): StorePrimary | undefined {
    return this.watch.primary;
  }

  onSwitch(listener: (primary: StorePrimary) => void): () => void {
    return this.watch.onSwitch(listener);
  }

  /** On `ready` and every slot refresh. */
  connected(): void {
    const primaries = clusterPrimaries(this.cluster);
    if (primaries.length > 0) this.watch.connected(primaries.join(','));
  }

  close(): void {
    this.cluster.off('refresh', this.onRefresh);
  }
}
