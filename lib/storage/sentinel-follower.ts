import type { Redis } from 'ioredis';
import type { Logger } from '../core/logger.js';
import { PrimaryWatch, type StorePrimary } from './primary-watch.js';
import { connectedAddress } from './redis-connection.js';
import { ReplicaQuorum, replicasInSync } from './replica-quorum.js';
import { STORAGE_DEFAULTS } from './storage-defaults.js';

/**
 * What a Sentinel-mode store keeps track of beside its connection: which primary it landed on (for
 * the status and the one failover line in the log), and how many replicas that primary keeps in
 * sync (sampled every second with INFO replication), which a write must reach before it counts.
 */
export class SentinelFollower {
  private readonly watch: PrimaryWatch;
  private readonly quorum = new ReplicaQuorum(STORAGE_DEFAULTS.redisReplicaWindowMs);
  private readonly client: Redis;
  private readonly timer: NodeJS.Timeout;

  constructor(client: Redis, logger: Logger) {
    this.client = client;
    this.watch = new PrimaryWatch(logger);
    this.timer = setInterval(() => this.sample(), STORAGE_DEFAULTS.redisReplicaSampleMs);
    this.timer.unref();
  }

  get primary(): StorePrimary | undefined {
    return this.watch.primary;
  }

  onSwitch(listener: (primary: StorePrimary) => void): () => void {
    return this.watch.onSwitch(listener);
  }

  get requiredReplicas(): number {
    return this.quorum.required;
  }

  /** On every `ready`: a new primary starts a new count. */
  connected(): void {
    const before = this.watch.primary?.address;
    this.watch.connected(connectedAddress(this.client));
    if (this.watch.primary?.address !== before) this.quorum.reset();
    this.sample();
  }

  close(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    if (this.client.status !== 'ready') return;
    // A failed sample keeps the last ones: the window, not a gap, decides.
    this.client.info('replication').then((info) => this.quorum.note(replicasInSync(info)), () => undefined);
  }
}
