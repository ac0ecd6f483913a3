import type { Logger } from '../core/logger.js';

/** The server a Sentinel-mode store writes to, and since when: what the node status shows. */
export interface StorePrimary {
  readonly role: 'primary';
  /** host:port as the socket sees it. */
  readonly address: string;
  /** Epoch ms of the first connection to this address. */
  readonly since: number;
  /** How many times the primary changed since the store opened (0: never). */
  readonly switches: number;
}

/**
 * Follows which server the connection lands on at each `ready`. A new address after the first is a
 * failover: logged once here, whatever number of calls fail or wait meanwhile (those are answered
 * 503 without a line each).
 */
export class PrimaryWatch {
  private current: StorePrimary | undefined;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(logger: Logger, now: () => number = Date.now) {
    this.logger = logger;
    this.now = now;
  }

  get primary(): StorePrimary | undefined {
    return this.current;
  }

  connected(address: string | undefined): void {
    if (address === undefined) return;
    const previous = this.current;
    if (previous?.address === address) return;
    this.current = { role: 'primary', address, since: this.now(), switches: previous ? previous.switches + 1 : 0 };
    if (previous) this.logger.warn(`redis storage failover: the primary is now ${address} (was ${previous.address})`);
    else this.logger.info(`redis storage primary is ${address}`);
  }
}
