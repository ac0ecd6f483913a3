/**
 * How many replicas a write must reach before a Sentinel-mode store acknowledges it: the most the
 * current primary had in sync at any sample of the last `windowMs`.
 *
 * Why the most, and why a window: Redis replicates asynchronously, and two failovers lose writes in
 * different ways. When the primary dies, the sentinels promote the replica with the most data, so a
 * write that reached any replica survives: waiting for one is enough, and waiting for all would stop
 * every write while the dead node is away. When a primary is demoted on purpose (SENTINEL FAILOVER),
 * it keeps taking writes for a moment after a replica was promoted, and the other replicas still
 * acknowledge them until they are moved to the new primary, where they drop them. The replica that
 * was promoted stops acknowledging at once, so asking for as many as were in sync a moment before
 * refuses exactly those writes (503, retryable) instead of acknowledging writes that will vanish.
 * A replica that crashes costs at most `windowMs` of refused writes.
 */
export class ReplicaQuorum {
  private samples: Array<{ readonly at: number; readonly count: number }> = [];
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(windowMs: number, now: () => number = Date.now) {
    this.windowMs = windowMs;
    this.now = now;
  }

  /** A new primary: what the old one had says nothing about it. */
  reset(): void {
    this.samples = [];
  }

  note(inSync: number): void {
    const now = this.now();
    this.samples = [...this.samples.filter((sample) => now - sample.at < this.windowMs), { at: now, count: inSync }];
  }

  /** Before the first sample of a primary, one: a Sentinel group that can fail over has a replica. */
  get required(): number {
    const now = this.now();
    const recent = this.samples.filter((sample, i) => now - sample.at < this.windowMs || i === this.samples.length - 1);
    return recent.length === 0 ? 1 : Math.max(...recent.map((sample) => sample.count));
  }
}

/** Replicas in sync (`state=online`) in the reply to INFO replication. */
export function replicasInSync(info: string): number {
  return info.split(/\r?\n/).filter((line) => /^slave\d+:.*\bstate=online\b/.test(line)).length;
}
