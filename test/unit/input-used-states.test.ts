import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UsedStates } from '../../lib/input/used-states.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { StorageUnavailableError } from '../../lib/storage/store.js';

describe('UsedStates', () => {
  it('lets each state be claimed once, whoever claims it, until it would have expired', async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now });
    const [here, there] = [new UsedStates(store), new UsedStates(store)];
    const expiresAt = now + 60_000;
    const claims = await Promise.all([here.claim('v1.state-a', expiresAt, now), there.claim('v1.state-a', expiresAt, now), here.claim('v1.state-a', expiresAt, now)]);
    assert.deepEqual(claims.sort(), [false, false, true]);
    assert.equal(await there.claim('v1.state-b', expiresAt, now), true, 'another state is its own');
    now += 59_000;
    assert.equal(await here.claim('v1.state-a', expiresAt, now), false, 'still used while it could be presented');
    now += 2_000;
    // Expired by then: the sealer refuses the state itself, so the record may go.
    assert.equal(await here.claim('v1.state-a', now + 60_000, now), true);
    await store.close();
  });

  it('keeps only a hash of the state', async () => {
    const store = new MemoryStore();
    const keys: string[] = [];
    const putIfAbsent = store.putIfAbsent.bind(store);
    store.putIfAbsent = (key, value, ttl) => {
      keys.push(`${key.namespace}:${key.kind}:${key.id}`);
      return putIfAbsent(key, value, ttl);
    };
    await new UsedStates(store).claim('v1.secret-state-text', Date.now() + 1_000);
    assert.equal(keys.length, 1);
    assert.match(keys[0]!, /^mcp-input:used-state:[A-Za-z0-9_-]{43}$/);
    await store.close();
  });

  it('passes a storage outage on, so the retry is refused rather than a state used twice', async () => {
    const store = new MemoryStore();
    await store.close();
    await assert.rejects(new UsedStates(store).claim('v1.x', Date.now() + 1_000), StorageUnavailableError);
  });
});
