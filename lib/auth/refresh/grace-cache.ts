import type { Store } from '../../storage/store.js';
import { SealError, type CryptoBox } from './crypto-box.js';
import { decodeGraceResponse, REFRESH_KINDS, ttlUntil, type GraceResponse } from './session-records.js';

/**
 * The response of a rotation, kept for an identical retry of the token it replaced. Sealed and
 * bound to namespace, session and the previous token's hash, so it opens only for the request it
 * was made for; its TTL ends with the grace window or the access token, whichever is first.
 * Each claim owner writes its own entry and the committed session names the one that counts, so a
 * stale worker that writes late cannot replace the committed response.
 */
export class GraceCache {
  constructor(
    private readonly store: Store,
    private readonly namespace: string,
    private readonly box: CryptoBox,
    private readonly now: () => number,
  ) {}

  async write(session: string, previousHash: string, owner: string, response: GraceResponse, until: number): Promise<void> {
    const ttl = ttlUntil(until, this.now());
    if (ttl < 1) return;
    const sealed = this.box.seal('grace', this.binding(session, previousHash, owner), JSON.stringify(response));
    await this.store.put(this.key(previousHash, owner), sealed, ttl);
  }

  /** undefined when absent, expired, or sealed for anything else (which fails closed). */
  async read(session: string, previousHash: string, owner: string): Promise<GraceResponse | undefined> {
    const sealed = await this.store.get(this.key(previousHash, owner));
    if (sealed === undefined) return undefined;
    try {
      return decodeGraceResponse(this.box.open('grace', this.binding(session, previousHash, owner), sealed));
    } catch (error) {
      if (error instanceof SealError) return undefined;
      throw error;
    }
  }

  private binding(session: string, previousHash: string, owner: string): string[] {
    return [this.namespace, session, previousHash, owner];
  }

  private key(previousHash: string, owner: string) {
    return { namespace: this.namespace, kind: REFRESH_KINDS.grace, id: `${previousHash}.${owner}` };
  }
}
