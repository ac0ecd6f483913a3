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
  /** A changed set of primaries one refresh has reported, waiting for the next to agree. */
  private candidate: string | undefined;

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

  /**
   * On `ready` and every slot refresh. While a failover settles, the cluster's nodes can disagree for
   * a moment on which node holds the failed primary's slots, and consecutive refreshes (each asks one
   * node) can flip between the old set of primaries and the new one: a CI run logged one SIGKILL as
   * three failovers. A changed set is taken once two refreshes in a row report it, so one failover is
   * logged and counted once, about a refresh interval (a second) after the first sign of it.
   */
  connected(): void {
    const primaries = clusterPrimaries(this.cluster);
    if (primaries.length === 0) return;
    const address = primaries.join(',');
    const current = this.watch.primary?.address;
    const confirmed = current === undefined || address === current || address === this.candidate;
    this.candidate = confirmed ? undefined : address;
    if (confirmed) this.watch.connected(address);
  }

  close(): void {
    this.cluster.off('refresh', this.onRefresh);
  }
}
