import { STORAGE_DEFAULTS } from './storage-defaults.js';
import { assertKeyPrefix, assertLimit, assertMember, assertTtlSeconds, assertValue, renderStoreKey } from './store-arguments.js';
import { StorageUnavailableError, type Store, type StoreKey, type StoreState } from './store.js';

export interface MemoryStoreOptions {
  readonly keyPrefix?: string;
  /** Clock in milliseconds; tests pass a fake one to expire entries without waiting. */
  readonly now?: () => number;
  readonly sweepIntervalMs?: number;
}

interface Entry {
  readonly value: string;
  readonly expiresAt: number;
}

const NEVER_CHANGES = (): void => {};

/**
 * One process's Map, with Redis semantics: whole-second TTLs, single-use `take`, atomic CAS.
 * Atomic because every operation runs to completion synchronously before its promise settles.
 * Expired entries vanish on read; a periodic sweep drops the ones nobody reads again.
 */
export class MemoryStore implements Store {
  readonly mode = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  /** Bounded sets: member -> when it expires (ms), per rendered key. Apart from values, as Redis keeps types apart. */
  private readonly sets = new Map<string, Map<string, number>>();
  private readonly channels = new Map<string, Set<(message: string) => void>>();
  private readonly keyPrefix: string;
  private readonly now: () => number;
  private readonly sweepTimer: NodeJS.Timeout;
  private closed = false;
  private readonly lastWords = new Set<{ readonly channel: StoreKey; readonly message: string }>();

  constructor(options: MemoryStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? STORAGE_DEFAULTS.keyPrefix;
    assertKeyPrefix(this.keyPrefix);
    this.now = options.now ?? Date.now;
    this.sweepTimer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? STORAGE_DEFAULTS.memorySweepIntervalMs);
    // The sweep is housekeeping; it must never keep Node-RED (or a test run) alive.
    this.sweepTimer.unref();
  }

  get state(): StoreState {
    return 'ready';
  }

  /** Entries held, expired or not; lets tests see that the sweep frees memory. */
  get size(): number {
    return this.entries.size;
  }

  async put(key: StoreKey, value: string, ttlSeconds: number): Promise<void> {
    assertValue(value);
    assertTtlSeconds(ttlSeconds);
    const rendered = this.prepare(key);
    this.entries.set(rendered, this.entry(value, ttlSeconds));
  }

  async putIfAbsent(key: StoreKey, value: string, ttlSeconds: number): Promise<boolean> {
    assertValue(value);
    assertTtlSeconds(ttlSeconds);
    const rendered = this.prepare(key);
    if (this.live(rendered) !== undefined) return false;
    this.entries.set(rendered, this.entry(value, ttlSeconds));
    return true;
  }

  async get(key: StoreKey): Promise<string | undefined> {
    return this.live(this.prepare(key))?.value;
  }

  async take(key: StoreKey): Promise<string | undefined> {
    const rendered = this.prepare(key);
    const entry = this.live(rendered);
    this.entries.delete(rendered);
    return entry?.value;
  }

  async compareAndSet(key: StoreKey, expected: string, next: string, ttlSeconds: number): Promise<boolean> {
    assertValue(expected);
    assertValue(next);
    assertTtlSeconds(ttlSeconds);
    const rendered = this.prepare(key);
    if (this.live(rendered)?.value !== expected) return false;
    this.entries.set(rendered, this.entry(next, ttlSeconds));
    return true;
  }

  async increment(key: StoreKey, ttlSeconds: number): Promise<number> {
    assertTtlSeconds(ttlSeconds);
    const rendered = this.prepare(key);
    const entry = this.live(rendered);
    if (entry === undefined) {
      this.entries.set(rendered, this.entry('1', ttlSeconds));
      return 1;
    }
    // Redis INCR accepts only the canonical text of a signed 64-bit integer.
    if (!/^-?(0|[1-9][0-9]{0,18})$/.test(entry.value) || !Number.isSafeInteger(Number(entry.value) + 1)) {
      throw new StorageUnavailableError('server_error');
    }
    const next = Number(entry.value) + 1;
    this.entries.set(rendered, { value: String(next), expiresAt: entry.expiresAt });
    return next;
  }

  async delete(key: StoreKey): Promise<void> {
    this.entries.delete(this.prepare(key));
  }

  async addToBoundedSet(key: StoreKey, member: string, ttlSeconds: number, limit: number): Promise<boolean> {
    assertMember(member);
    assertTtlSeconds(ttlSeconds);
    assertLimit(limit);
    const rendered = this.prepare(key);
    let members = this.sets.get(rendered);
    if (!members) this.sets.set(rendered, (members = new Map()));
    if (members.has(member) && members.get(member)! > this.now()) return true;
    // Expired members are dropped only when they could make room: an add below the limit costs O(1).
    if (members.size >= limit && this.liveSet(rendered, true)!.size >= limit) return false;
    members.set(member, this.now() + ttlSeconds * 1000);
    return true;
  }

  async removeFromSet(key: StoreKey, member: string): Promise<void> {
    assertMember(member);
    const rendered = this.prepare(key);
    const members = this.sets.get(rendered);
    members?.delete(member);
    if (members?.size === 0) this.sets.delete(rendered);
  }

  async countSet(key: StoreKey): Promise<number> {
    return this.liveSet(this.prepare(key), false)?.size ?? 0;
  }

  async publish(channel: StoreKey, message: string): Promise<number> {
    assertValue(message);
    const listeners = this.channels.get(this.prepare(channel));
    if (!listeners) return 0;
    // Delivered after the publisher's own step, as a Redis subscriber hears it: never re-entrantly.
    const snapshot = [...listeners];
    queueMicrotask(() => {
      for (const listener of snapshot) {
        try {
          listener(message);
        } catch {
          // One subscriber's fault must not keep the message from the others.
        }
      }
    });
    return snapshot.length;
  }

  subscribe(channel: StoreKey, listener: (message: string) => void): () => void {
    const rendered = this.prepare(channel);
    let listeners = this.channels.get(rendered);
    if (!listeners) this.channels.set(rendered, (listeners = new Set()));
    const own = (message: string) => listener(message);
    listeners.add(own);
    return () => {
      listeners.delete(own);
      if (listeners.size === 0 && this.channels.get(rendered) === listeners) this.channels.delete(rendered);
    };
  }

  publishOnClose(channel: StoreKey, message: string): () => void {
    assertValue(message);
    this.prepare(channel);
    const words = { channel, message };
    this.lastWords.add(words);
    return () => void this.lastWords.delete(words);
  }

  /** Memory is always ready, so there is never a change to report. */
  onState(): () => void {
    return NEVER_CHANGES;
  }

  async close(): Promise<void> {
    // Delivered like any publish (after this step), to the listeners subscribed now.
    if (!this.closed) for (const { channel, message } of this.lastWords) void this.publish(channel, message);
    this.lastWords.clear();
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.entries.clear();
    this.sets.clear();
    this.channels.clear();
  }

  /** Drops every expired entry; runs on the timer, public so tests need not wait for it. */
  sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) this.entries.delete(key);
    }
    for (const key of [...this.sets.keys()]) this.liveSet(key, false);
  }

  private prepare(key: StoreKey): string {
    const rendered = renderStoreKey(this.keyPrefix, key);
    // Closed behaves like Redis after quit, so code that kept a stale reference fails the same way.
    if (this.closed) throw new StorageUnavailableError('closed');
    return rendered;
  }

  private entry(value: string, ttlSeconds: number): Entry {
    return { value, expiresAt: this.now() + ttlSeconds * 1000 };
  }

  /** The set's members that have not expired (the expired ones are dropped); created when asked to. */
  private liveSet(rendered: string, create: boolean): Map<string, number> | undefined {
    let members = this.sets.get(rendered);
    if (members) {
      const now = this.now();
      for (const [member, expiresAt] of members) if (expiresAt <= now) members.delete(member);
      if (members.size === 0 && !create) {
        this.sets.delete(rendered);
        return undefined;
      }
    } else if (create) {
      this.sets.set(rendered, (members = new Map()));
    }
    return members;
  }

  private live(rendered: string): Entry | undefined {
    const entry = this.entries.get(rendered);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    this.entries.delete(rendered);
    return undefined;
  }
}
