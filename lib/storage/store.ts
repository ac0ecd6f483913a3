import { McpPaletteError } from '../core/errors.js';
import type { StorePrimary } from './primary-watch.js';

export type { StorePrimary } from './primary-watch.js';

/**
 * Where one piece of short-lived OAuth state lives. The namespace keeps bridges with different
 * providers, issuers or slugs apart; the kind names the record type (`state`, `code`, `token`...).
 */
export interface StoreKey {
  readonly namespace: string;
  readonly kind: string;
  readonly id: string;
}

/** `connecting` only before the first connection; `failed` needs a person (bad password, TLS). */
export type StoreState = 'ready' | 'connecting' | 'reconnecting' | 'failed';

export type StoreMode = 'memory' | 'redis';

/**
 * Short-lived string values with a TTL, shared by every instance that uses the same backend.
 * Every operation rejects with StorageUnavailableError while the backend is unreachable, and with a
 * plain Error when the caller passes a malformed key or TTL (a programming error, not an outage).
 */
export interface Store {
  readonly mode: StoreMode;
  readonly state: StoreState;
  /** Redis Sentinel or Cluster mode: the primary (primaries) the store writes to and when it last switched; else undefined. */
  readonly primary?: StorePrimary | undefined;
  /** Sets value with a TTL in whole seconds (>= 1), replacing any value and TTL already there. */
  put(key: StoreKey, value: string, ttlSeconds: number): Promise<void>;
  /** Sets only if absent (SET NX). true when it was set. */
  putIfAbsent(key: StoreKey, value: string, ttlSeconds: number): Promise<boolean>;
  get(key: StoreKey): Promise<string | undefined>;
  /** Get-and-delete in one atomic step: of many concurrent takes exactly one sees the value. */
  take(key: StoreKey): Promise<string | undefined>;
  /** Replaces the value only if it currently equals `expected` (atomic) and sets the new TTL. */
  compareAndSet(key: StoreKey, expected: string, next: string, ttlSeconds: number): Promise<boolean>;
  delete(key: StoreKey): Promise<void>;
  /**
   * Adds 1 to an integer counter (absent counts as 0) and returns the new value, atomically (INCR).
   * The TTL applies only when the counter has none yet (it was just created), so a counter is a fixed
   * window that later increments never extend. A value that is not an integer rejects with
   * StorageUnavailableError (`server_error`), as Redis refuses INCR on it.
   */
  increment(key: StoreKey, ttlSeconds: number): Promise<number>;
  /**
   * Adds `member` to the set at `key` unless the set already holds `limit` members; each member is
   * forgotten `ttlSeconds` after it was added (a sorted set scored by expiry in Redis), so the count
   * stays right as members expire, whichever instance added them. Atomic: of concurrent adds from
   * any instance, at most `limit` members result. A member already there is admitted again (same
   * expiry). Resolves to whether it is in the set. The set itself goes with its last member.
   */
  addToBoundedSet(key: StoreKey, member: string, ttlSeconds: number, limit: number): Promise<boolean>;
  /** Takes `member` out of the set at `key` (nothing happens when it is not there). */
  removeFromSet(key: StoreKey, member: string): Promise<void>;
  /** How many members of the set at `key` have not expired. */
  countSet(key: StoreKey): Promise<number>;
  /**
   * Sends `message` to every subscriber of `channel` on this backend: for Redis, every instance that
   * shares it (PUBLISH), for memory only this process. Fire and forget: a message sent while nobody
   * listens, or while a subscriber is reconnecting, is lost; nothing is stored. Resolves with how many
   * subscribers got it (Redis counts connections), so a sender can tell that nobody listened.
   */
  publish(channel: StoreKey, message: string): Promise<number>;
  /**
   * Calls `listener` with each message published on `channel` from now on. Returns an unsubscribe
   * that is safe to call twice. Never throws for an outage (a Redis subscription re-establishes itself
   * when the connection comes back); throws StorageUnavailableError after close.
   */
  subscribe(channel: StoreKey, listener: (message: string) => void): () => void;
  /**
   * Publishes `message` on `channel` when this store is closed, before it lets go of its connection,
   * unless the returned cancel was called first: the goodbye of a user (an edge) that must go out
   * whichever closes first, the user or the store. Node-RED calls the close handlers of a deploy or a
   * shutdown one after the other, so a user's own asynchronous goodbye may find its store closed.
   * Best effort, like publish: while the backend cannot be reached, nothing goes out.
   */
  publishOnClose(channel: StoreKey, message: string): () => void;
  /**
   * Sentinel and Cluster mode: calls listener when the store moved to another primary (a Cluster: when
   * its set of primaries changed), which a Cluster failover can do without any state change.
   */
  onPrimary?(listener: (primary: StorePrimary) => void): () => void;
  /** Calls listener on every state change (not with the current state). Returns an unsubscribe. */
  onState(listener: (state: StoreState) => void): () => void;
  /** Releases the connection or timer; later operations reject with StorageUnavailableError. */
  close(): Promise<void>;
}

/** Why an operation could not reach the backend; safe to log and to show. */
export type UnavailableReason = StoreState | 'closed' | 'timeout' | 'server_error' | 'not_replicated';

/**
 * The backend could not answer. OAuth routes turn this into 503 `temporarily_unavailable`.
 * Built from a reason token only: never the URL, password, key or the driver's own message.
 */
export class StorageUnavailableError extends McpPaletteError {
  readonly reason: UnavailableReason;

  constructor(reason: UnavailableReason) {
    super('storage_unavailable', `storage unavailable (${reason})`, { reason });
    this.name = 'StorageUnavailableError';
    this.reason = reason;
  }
}

export function isStorageUnavailable(error: unknown): error is StorageUnavailableError {
  return error instanceof StorageUnavailableError;
}
