import type { Logger } from '../core/logger.js';

/**
 * The server a Sentinel-mode store writes to (`primary`), or the primaries of a Cluster (`cluster`),
 * and since when: what the node status shows.
 */
export interface StorePrimary {
  readonly role: 'primary' | 'cluster';
  /** host:port as the socket sees it; a Cluster's primaries as a sorted, comma-separated list. */
  readonly address: string;
  /** Epoch ms of the first connection to this address. */
  readonly since: number;
  /** How many times the primary changed since the store opened (0: never). */
  readonly switches: number;
}

/**
 * Follows which server the connection lands on at each `ready` (Sentinel), or which primaries a
 * Cluster has at each slot refresh. A new address after the first is a failover: logged once here,
 * whatever number of calls fail or wait meanwhile (those are answered 503 without a line each).
 */
export class PrimaryWatch {
  private current: StorePrimary | undefined;
  private readonly listeners = new Set<(primary: StorePrimary) => void>();
  private readonly logger: Logger;
  private readonly role: StorePrimary['role'];
  private readonly now: () => number;

  constructor(logger: Logger, role: StorePrimary['role'] = 'primary', now: () => number = Date.now) {
    this.logger = logger;
    this.role = role;
    this.now = now;
  }

  get primary(): StorePrimary | undefined {
    return this.current;
  }

  /** Calls listener with each new primary after the first (a failover). Returns an unsubscribe. */
  onSwitch(listener: (primary: StorePrimary) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  connected(address: string | undefined): void {
    if (address === undefined) return;
    const previous = this.current;
    if (previous?.address === address) return;
    this.current = { role: this.role, address, since: this.now(), switches: previous ? previous.switches + 1 : 0 };
    if (this.role === 'cluster') {
      if (previous) this.logger.warn(`redis storage cluster failover: the primaries are now ${address} (were ${previous.address})`);
      else this.logger.info(`redis storage cluster primaries are ${address}`);
    } else if (previous) this.logger.warn(`redis storage failover: the primary is now ${address} (was ${previous.address})`);
    else this.logger.info(`redis storage primary is ${address}`);
    if (!previous) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(this.current);
      } catch {
        this.logger.warn('a storage primary listener threw');
      }
    }
  }
}
