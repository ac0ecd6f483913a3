import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { runStoreContract } from '../support/store-contract.js';

/** One fake clock per suite, shared by every store the contract opens. */
function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_700_000_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

runStoreContract('MemoryStore', async () => {
  const clock = fakeClock();
  return {
    open: async (keyPrefix) => new MemoryStore({ keyPrefix, now: clock.now }),
    elapse: async (ms) => clock.advance(ms),
  };
});

describe('MemoryStore', () => {
  const key = { namespace: 'ns', kind: 'code', id: 'abc' };

  it('expires at exactly the TTL in whole seconds, like Redis EX', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    await store.put(key, 'v', 2);
    clock.advance(1_999);
    assert.equal(await store.get(key), 'v');
    clock.advance(1);
    assert.equal(await store.get(key), undefined);
    await store.close();
  });

  it('drops expired entries on read, so memory does not keep them', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    await store.put(key, 'v', 1);
    clock.advance(1_000);
    assert.equal(store.size, 1);
    await store.get(key);
    assert.equal(store.size, 0);
    await store.close();
  });

  it('sweeps expired entries nobody reads again and keeps live ones', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    for (let index = 0; index < 100; index += 1) await store.put({ ...key, id: `short-${index}` }, 'v', 1);
    await store.put({ ...key, id: 'long' }, 'v', 60);
    clock.advance(1_000);
    store.sweep();
    assert.equal(store.size, 1);
    assert.equal(await store.get({ ...key, id: 'long' }), 'v');
    await store.close();
  });

  it('runs the sweep on its own timer', async (t) => {
    // The timer is Node's own, mocked: it fires when the test moves time, not after a wait.
    t.mock.timers.enable({ apis: ['setInterval'] });
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 10 });
    await store.put(key, 'v', 1);
    clock.advance(1_000);
    t.mock.timers.tick(9);
    assert.equal(store.size, 1, 'no sweep before the interval');
    t.mock.timers.tick(1);
    assert.equal(store.size, 0, 'the sweep timer removed the expired entry');
    await store.close();
  });

  it('is always ready and in memory mode', () => {
    const store = new MemoryStore();
    assert.equal(store.mode, 'memory');
    assert.equal(store.state, 'ready');
    return store.close();
  });

  it('refuses key prefixes that could break the key format', () => {
    for (const keyPrefix of ['', 'a:b', 'with space', 'x'.repeat(65)]) {
      assert.throws(() => new MemoryStore({ keyPrefix }), Error);
    }
    return new MemoryStore({ keyPrefix: 'Team_1.prod-a' }).close();
  });
});
