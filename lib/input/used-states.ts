import { createHash } from 'node:crypto';
import { MemoryStore } from '../storage/memory-store.js';
import type { Store, StoreKey } from '../storage/store.js';

/** Where the process keeps used states when its endpoint has no storage of its own. */
let processStore: MemoryStore | undefined;

/**
 * Which sealed `requestState`s have been used. A state is good for one retry: the first retry that
 * passes every check claims it (SET NX in Redis, so of two instances receiving the same state at
 * once exactly one wins), and the record stays until the state would have expired anyway. Without
 * it a client could replay a finished round — and whatever the flow did in it — for 15 minutes.
 * Records are keyed by a hash of the state, never the state itself.
 */
export class UsedStates {
  private readonly store: Store;

  constructor(store?: Store) {
    // Without a shared storage, states sealed with this process's key only come back here anyway;
    // with MCP_REQUEST_STATE_KEY shared but no Redis, each instance keeps its own record (docs/asking.md).
    this.store = store ?? (processStore ??= new MemoryStore());
  }

  /**
   * Records `state` as used until `expiresAt` (ms). true for the first claim, false for any later
   * one. Rejects with StorageUnavailableError when the storage cannot answer: the caller refuses
   * the retry rather than let a state be used twice.
   */
  async claim(state: string, expiresAt: number, now = Date.now()): Promise<boolean> {
    const ttlSeconds = Math.max(1, Math.ceil((expiresAt - now) / 1000));
    return this.store.putIfAbsent(keyOf(state), '1', ttlSeconds);
  }

  /**
   * Gives a claimed state back: only for a round that never started (the server was too busy to
   * take it), so the client's retry of the same state can still succeed.
   */
  async release(state: string): Promise<void> {
    await this.store.delete(keyOf(state));
  }
}

function keyOf(state: string): StoreKey {
  return { namespace: 'mcp-input', kind: 'used-state', id: createHash('sha256').update(state).digest('base64url') };
}
