import type { Store } from '../../storage/store.js';
import {
  decodeSession,
  decodeTokenIndex,
  encodeSession,
  REFRESH_KINDS,
  sessionEndsAt,
  ttlUntil,
  type SessionRecord,
  type TokenIndexRecord,
} from './session-records.js';

/** A session as read: `raw` is the exact stored text, the `expected` of the next compare-and-set. */
export interface LoadedSession {
  readonly raw: string;
  readonly record: SessionRecord;
}

/**
 * Storage of refresh sessions and token indexes for one namespace. Every session write states its
 * TTL from the record's own expiry fields, so no write can keep a session alive longer than its
 * inactivity or absolute deadline allows.
 */
export class SessionStore {
  constructor(
    private readonly store: Store,
    private readonly namespace: string,
    private readonly now: () => number,
  ) {}

  async load(session: string): Promise<LoadedSession | undefined> {
    const raw = await this.store.get(this.sessionKey(session));
    const record = decodeSession(raw);
    return raw !== undefined && record ? { raw, record } : undefined;
  }

  async create(session: string, record: SessionRecord): Promise<void> {
    await this.store.put(this.sessionKey(session), encodeSession(record), this.ttl(record));
  }

  /** Compare-and-set; false when another worker changed the record first (or it is gone). */
  async replace(session: string, expected: string, next: SessionRecord): Promise<{ ok: boolean; raw: string }> {
    const raw = encodeSession(next);
    const ok = await this.store.compareAndSet(this.sessionKey(session), expected, raw, this.ttl(next));
    return { ok, raw };
  }

  async remove(session: string): Promise<void> {
    await this.store.delete(this.sessionKey(session));
  }

  async indexToken(tokenHash: string, index: TokenIndexRecord, until: number): Promise<void> {
    await this.store.put(this.tokenKey(tokenHash), JSON.stringify(index), Math.max(1, ttlUntil(until, this.now())));
  }

  async findToken(tokenHash: string): Promise<TokenIndexRecord | undefined> {
    return decodeTokenIndex(await this.store.get(this.tokenKey(tokenHash)));
  }

  private ttl(record: SessionRecord): number {
    // A record at or past its end is about to be refused anyway; one second keeps the TTL valid.
    return Math.max(1, ttlUntil(sessionEndsAt(record), this.now()));
  }

  private sessionKey(id: string) {
    return { namespace: this.namespace, kind: REFRESH_KINDS.session, id };
  }

  private tokenKey(id: string) {
    return { namespace: this.namespace, kind: REFRESH_KINDS.token, id };
  }
}
