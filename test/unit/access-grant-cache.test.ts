import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccessGrantCache } from '../../lib/auth/access-grant-cache.js';
import { accessRevocations, endAccessGrant } from '../../lib/auth/access-revocation.js';
import { sha256 } from '../../lib/auth/secrets.js';
import { encodeRecord, RECORD_KINDS, type AccessGrant } from '../../lib/auth/sign-in-records.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { StorageUnavailableError, type StoreKey, type StoreState } from '../../lib/storage/store.js';

const NAMESPACE = 'ns-grant-cache';
const START = 1_700_000_000_000;

/**
 * A MemoryStore on a fake clock whose reads are counted, whose state a test can set (a MemoryStore
 * is always `ready`; a Redis store is not) and whose next read can be held until released.
 */
class WatchedStore extends MemoryStore {
  time = START;
  reads = 0;
  private forcedState: StoreState | undefined;
  private readonly stateListeners = new Set<(state: StoreState) => void>();
  private gate: Promise<void> | undefined;

  constructor() {
    super({ now: () => this.time });
  }

  override get state(): StoreState {
    return this.forcedState ?? 'ready';
  }

  /** Reads fail as a Redis store's do while it cannot be reached; state listeners hear the change. */
  setState(state: StoreState): void {
    this.forcedState = state;
    for (const listener of this.stateListeners) listener(state);
  }

  // Optional only to match MemoryStore's own signature (it never changes state).
  override onState(listener?: (state: StoreState) => void): () => void {
    if (!listener) return () => {};
    this.stateListeners.add(listener);
    return () => void this.stateListeners.delete(listener);
  }

  /** Holds the next read's answer (it is read at once) until the returned release is called. */
  holdNextRead(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => (release = resolve));
    return release;
  }

  override async get(key: StoreKey): Promise<string | undefined> {
    this.reads += 1;
    if (this.state !== 'ready') throw new StorageUnavailableError(this.state);
    const value = await super.get(key);
    const gate = this.gate;
    this.gate = undefined;
    if (gate) await gate;
    return value;
  }
}

function grantFor(expiresAt: number): AccessGrant {
  return { clientId: 'https://client.test/c.json', client: 'claude', resource: 'http://127.0.0.1:1881/tools', scope: ['mcp'], identity: { subject: 'alice', groups: ['staff'] }, session: 'abcdef123456', expiresAt };
}

/** Stores a grant as the token endpoint does; returns the token's hash (its storage id). */
async function issue(store: WatchedStore, lifetimeSeconds = 900): Promise<string> {
  const hash = sha256(`token-${Math.random()}`);
  await store.put({ namespace: NAMESPACE, kind: RECORD_KINDS.access, id: hash }, encodeRecord(grantFor(store.time + lifetimeSeconds * 1000)), lifetimeSeconds);
  return hash;
}

function setup(options: { maxEntries?: number } = {}) {
  const store = new WatchedStore();
  const cache = new AccessGrantCache({ store, namespace: NAMESPACE, lifetimeMs: 1_000, now: () => store.time, ...options });
  return { store, cache };
}

/** Lets the MemoryStore deliver what was published (it delivers after the publisher's step, as Redis does). */
const delivered = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('AccessGrantCache', () => {
  it('answers a token read in the last lifetime from memory, and reads storage again after it', async () => {
    const { store, cache } = setup();
    const hash = await issue(store);
    assert.equal((await cache.lookup(hash))?.identity.subject, 'alice');
    store.time += 999;
    assert.equal((await cache.lookup(hash))?.identity.subject, 'alice');
    assert.equal(store.reads, 1, 'the second check within the lifetime costs no read');
    store.time += 1;
    await cache.lookup(hash);
    assert.equal(store.reads, 2);
    cache.close();
  });

  it('refuses a grant ended without its announcement once the lifetime has passed (a lost message)', async () => {
    const { store, cache } = setup();
    const hash = await issue(store);
    await cache.lookup(hash);
    await store.delete({ namespace: NAMESPACE, kind: RECORD_KINDS.access, id: hash });
    store.time += 999;
    assert.ok(await cache.lookup(hash), 'still believed within the lifetime');
    store.time += 1;
    assert.equal(await cache.lookup(hash), undefined);
    cache.close();
  });

  it('forgets a grant at once when its end is announced', async () => {
    const { store, cache } = setup();
    const hash = await issue(store);
    const other = await issue(store);
    await cache.lookup(hash);
    await cache.lookup(other);
    await endAccessGrant(store, NAMESPACE, hash);
    await delivered();
    assert.equal(await cache.lookup(hash), undefined);
    assert.ok(await cache.lookup(other), 'another token stays');
    assert.equal(store.reads, 3, 'only the ended one was read again');
    cache.close();
  });

  it('does not keep a read that began before an announcement (it may predate the end)', async () => {
    const { store, cache } = setup();
    const hash = await issue(store);
    const release = store.holdNextRead();
    const pending = cache.lookup(hash);
    // The read has its value; the end and its announcement arrive before its answer is used.
    await store.delete({ namespace: NAMESPACE, kind: RECORD_KINDS.access, id: hash });
    await store.publish(accessRevocations(NAMESPACE), hash);
    await delivered();
    release();
    assert.ok(await pending, 'the check already under way answers with what it read');
    assert.equal(cache.size, 0);
    assert.equal(await cache.lookup(hash), undefined, 'the next check reads storage');
    cache.close();
  });

  it('never answers from memory while storage is not ready: the check fails as storage does', async () => {
    const { store, cache } = setup();
    const hash = await issue(store);
    await cache.lookup(hash);
    store.setState('reconnecting');
    await assert.rejects(cache.lookup(hash), StorageUnavailableError);
    store.setState('ready');
    assert.equal(cache.size, 0, 'a state change empties the cache: announcements may have been missed');
    assert.ok(await cache.lookup(hash));
    assert.equal(store.reads, 3);
    cache.close();
  });

  it('forgets everything when a read fails while storage still says ready (a hung Redis timing out)', async () => {
    const { store, cache } = setup();
    const [kept, other] = [await issue(store), await issue(store)];
    await cache.lookup(kept);
    const realGet = store.get.bind(store);
    store.get = async () => {
      throw new StorageUnavailableError('timeout');
    };
    await assert.rejects(cache.lookup(other), StorageUnavailableError);
    await assert.rejects(cache.lookup(kept), StorageUnavailableError, 'the grant read before is not believed any more');
    store.get = realGet;
    cache.close();
  });

  it('never keeps a grant past its expiry', async () => {
    const { store, cache } = setup();
    const hash = await issue(store, 1);
    store.time += 600;
    await cache.lookup(hash);
    store.time += 400;
    assert.equal(await cache.lookup(hash), undefined, 'expired in storage, not answered from memory');
    cache.close();
  });

  it('holds at most maxEntries grants, dropping the oldest', async () => {
    const { store, cache } = setup({ maxEntries: 2 });
    const [a, b, c] = [await issue(store), await issue(store), await issue(store)];
    for (const hash of [a, b, c]) await cache.lookup(hash);
    assert.equal(cache.size, 2);
    await cache.lookup(b);
    await cache.lookup(c);
    assert.equal(store.reads, 3, 'the two newest stayed');
    await cache.lookup(a);
    assert.equal(store.reads, 4, 'the oldest was dropped');
    cache.close();
  });

  it('hands out grants nobody can change for the next call', async () => {
    const { store, cache } = setup();
    const hash = await issue(store);
    const grant = await cache.lookup(hash);
    assert.throws(() => (grant!.identity.groups as string[]).push('admin'), TypeError);
    assert.deepEqual((await cache.lookup(hash))?.identity.groups, ['staff']);
    cache.close();
  });

  it('stops listening when closed', async () => {
    const { store, cache } = setup();
    const hash = await issue(store);
    await cache.lookup(hash);
    cache.close();
    assert.equal(cache.size, 0);
    assert.equal(await store.publish(accessRevocations(NAMESPACE), hash), 0, 'no subscriber left');
  });
});
