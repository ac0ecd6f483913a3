import type { Store } from '../storage/store.js';
import { accessRevocations } from './access-revocation.js';
import { decodeRecord, RECORD_KINDS, type AccessGrant } from './sign-in-records.js';

export interface AccessGrantCacheOptions {
  readonly store: Store;
  readonly namespace: string;
  /** How long a grant read from storage is believed without asking again (ms); the revocation bound when a message is lost. */
  readonly lifetimeMs?: number;
  /** Grants kept at once; past it the oldest is dropped. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

/** Revocation reaches every instance within this, even when its announcement is lost. */
export const ACCESS_GRANT_CACHE_MS = 1_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  readonly grant: AccessGrant;
  readonly until: number;
}

/**
 * The access grants this process read from storage in the last second, keyed by the token's SHA-256
 * (the storage id; the token itself is never held), so a client's stream of calls costs one storage
 * read per second instead of one per call. Every end of a grant (revocation, a session ended, a code
 * replayed: access-revocation.ts) is announced on the storage's channel and forgotten here at once;
 * an announcement lost on the way (a subscriber reconnecting, a failover) is covered by the lifetime,
 * so a revoked token is refused by every instance within `lifetimeMs` whatever happens. Nothing is
 * answered from memory unless storage is `ready`: while it is unreachable every check goes to storage
 * and fails closed as it would without the cache, and any change of its state, or a read that fails,
 * empties the cache (announcements may have been missed meanwhile). Only live grants are kept; an unknown token is
 * looked up every time, as before.
 */
export class AccessGrantCache {
  private readonly entries = new Map<string, Entry>();
  /** Counts forgets: a read that began before one is used but not kept, since it may predate the end. */
  private epoch = 0;
  private readonly store: Store;
  private readonly namespace: string;
  private readonly lifetimeMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly stopListening: () => void;
  private readonly stopWatching: () => void;

  constructor(options: AccessGrantCacheOptions) {
    this.store = options.store;
    this.namespace = options.namespace;
    this.lifetimeMs = options.lifetimeMs ?? ACCESS_GRANT_CACHE_MS;
    this.maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.now = options.now ?? Date.now;
    this.stopListening = this.store.subscribe(accessRevocations(this.namespace), (hash) => this.forget(hash));
    this.stopWatching = this.store.onState(() => this.clear());
  }

  /** Grants held right now (for tests and the bench). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The grant stored for the token whose SHA-256 is `hash`, or undefined when there is none. Rejects
   * as `store.get` does (StorageUnavailableError) when storage cannot be read.
   */
  async lookup(hash: string): Promise<AccessGrant | undefined> {
    const started = this.now();
    if (this.store.state === 'ready') {
      const held = this.entries.get(hash);
      if (held !== undefined) {
        if (held.until > started) return held.grant;
        this.entries.delete(hash);
      }
    }
    const epoch = this.epoch;
    let stored: string | undefined;
    try {
      stored = await this.store.get({ namespace: this.namespace, kind: RECORD_KINDS.access, id: hash });
    } catch (error) {
      // A read that failed while the state still says `ready` (a Redis that hangs, a timeout): believe
      // nothing read before it either.
      this.clear();
      throw error;
    }
    const grant = decodeRecord<AccessGrant>(stored);
    if (grant !== undefined && epoch === this.epoch && this.store.state === 'ready') this.keep(hash, grant, started);
    return grant;
  }

  /** Forgets one grant (its end was announced). */
  forget(hash: string): void {
    this.epoch += 1;
    this.entries.delete(hash);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
  }

  close(): void {
    this.stopListening();
    this.stopWatching();
    this.clear();
  }

  private keep(hash: string, grant: AccessGrant, readAt: number): void {
    // Counted from when the read began: an end announced after that is at most lifetimeMs away.
    const until = Math.min(readAt + this.lifetimeMs, grant.expiresAt);
    if (until <= readAt) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { grant: frozen(grant), until });
  }
}

/** A kept grant is shared by every call for a second: nothing that reads it may change it for the next. */
function frozen(grant: AccessGrant): AccessGrant {
  Object.freeze(grant.identity.groups);
  Object.freeze(grant.identity);
  Object.freeze(grant.scope);
  return Object.freeze(grant);
}
