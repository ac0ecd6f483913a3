import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { StorageUnavailableError, type Store, type StoreKey } from '../../lib/storage/store.js';

/** One backend to run the Store contract against. */
export interface ContractSubject {
  /** A ready store with this key prefix; every call shares the same backend (same Redis). */
  open(keyPrefix: string): Promise<Store>;
  /** Lets `ms` pass for TTL purposes: a fake clock for memory, real waiting for Redis. */
  elapse(ms: number): Promise<void>;
  /** Releases the backend after the suite (stops nothing the caller owns). */
  dispose?(): Promise<void>;
}

const CONCURRENT_TAKES = 50;
const CONCURRENT_SWAPS = 20;
/** Past a 1 s TTL by a margin that leaves Redis's expiry (ms precision) no room for doubt. */
const PAST_ONE_SECOND = 1_500;

/** The key-value operations of a Store, each on `key`: what a store that cannot serve must refuse, every one. */
export function keyValueOperations(store: Store, key: StoreKey): Array<() => Promise<unknown>> {
  return [
    () => store.put(key, 'v', 60),
    () => store.putIfAbsent(key, 'v', 60),
    () => store.get(key),
    () => store.take(key),
    () => store.compareAndSet(key, 'v', 'w', 60),
    () => store.delete(key),
  ];
}

/**
 * The behaviour every Store must have, so MemoryStore stays a faithful stand-in for RedisStore.
 * Each test uses its own namespace, so tests never see each other's keys on a shared Redis.
 */
export function runStoreContract(name: string, makeSubject: () => Promise<ContractSubject>): void {
  describe(`Store contract: ${name}`, { timeout: 60_000 }, () => {
    let subject: ContractSubject;
    let store: Store;
    const extraStores: Store[] = [];
    const prefix = `contract-${randomUUID().slice(0, 8)}`;
    const key = (kind = 'code', id: string = randomUUID(), namespace = `ns-${randomUUID()}`): StoreKey => ({ namespace, kind, id });
    const openExtra = async (keyPrefix: string) => {
      const opened = await subject.open(keyPrefix);
      extraStores.push(opened);
      return opened;
    };

    before(async () => {
      subject = await makeSubject();
      store = await subject.open(prefix);
    });

    after(async () => {
      await Promise.all([store, ...extraStores].map((opened) => opened?.close()));
      await subject?.dispose?.();
    });

    it('is ready once opened', () => {
      assert.equal(store.state, 'ready');
    });

    it('gets what was put, and undefined for a key never put', async () => {
      const k = key();
      await store.put(k, 'value-1', 60);
      assert.equal(await store.get(k), 'value-1');
      assert.equal(await store.get(key()), undefined);
    });

    it('keeps values exactly, including empty, unicode and ":"', async () => {
      for (const value of ['', 'a:b:c', 'grüße ✓ 🚀', JSON.stringify({ sub: 'x', groups: ['a', 'b'] }), 'x'.repeat(10_000)]) {
        const k = key();
        await store.put(k, value, 60);
        assert.equal(await store.get(k), value);
      }
    });

    it('replaces the value on a second put', async () => {
      const k = key();
      await store.put(k, 'first', 60);
      await store.put(k, 'second', 60);
      assert.equal(await store.get(k), 'second');
    });

    it('forgets a value after its TTL, after which putIfAbsent sets it again', async () => {
      const k = key();
      await store.put(k, 'short-lived', 1);
      assert.equal(await store.get(k), 'short-lived');
      await subject.elapse(PAST_ONE_SECOND);
      assert.equal(await store.get(k), undefined);
      assert.equal(await store.take(k), undefined);
      assert.equal(await store.compareAndSet(k, 'short-lived', 'revived', 60), false);
      assert.equal(await store.putIfAbsent(k, 'again', 60), true);
      assert.equal(await store.get(k), 'again');
    });

    it('takes the TTL of the latest put', async () => {
      const k = key();
      await store.put(k, 'v', 1);
      await store.put(k, 'v', 60);
      await subject.elapse(PAST_ONE_SECOND);
      assert.equal(await store.get(k), 'v');
    });

    it('putIfAbsent sets only when absent and leaves an existing value alone', async () => {
      const k = key();
      assert.equal(await store.putIfAbsent(k, 'first', 60), true);
      assert.equal(await store.putIfAbsent(k, 'second', 60), false);
      assert.equal(await store.get(k), 'first');
    });

    it('take returns the value once and then undefined', async () => {
      const k = key();
      await store.put(k, 'once', 60);
      assert.equal(await store.take(k), 'once');
      assert.equal(await store.take(k), undefined);
      assert.equal(await store.get(k), undefined);
      assert.equal(await store.take(key()), undefined);
    });

    it(`take is single use under ${CONCURRENT_TAKES} concurrent takes`, async () => {
      const k = key();
      await store.put(k, 'the-code', 60);
      const results = await Promise.all(Array.from({ length: CONCURRENT_TAKES }, () => store.take(k)));
      assert.deepEqual(results.filter((result) => result !== undefined), ['the-code']);
    });

    it('compareAndSet replaces only a matching value', async () => {
      const k = key();
      await store.put(k, 'v1', 60);
      assert.equal(await store.compareAndSet(k, 'v1', 'v2', 60), true);
      assert.equal(await store.get(k), 'v2');
      assert.equal(await store.compareAndSet(k, 'v1', 'v3', 60), false);
      assert.equal(await store.get(k), 'v2');
    });

    it('compareAndSet on an absent key fails and creates nothing', async () => {
      const k = key();
      assert.equal(await store.compareAndSet(k, '', 'created', 60), false);
      assert.equal(await store.compareAndSet(k, 'anything', 'created', 60), false);
      assert.equal(await store.get(k), undefined);
    });

    it('compareAndSet sets the new TTL', async () => {
      const k = key();
      await store.put(k, 'long', 60);
      assert.equal(await store.compareAndSet(k, 'long', 'short', 1), true);
      await subject.elapse(PAST_ONE_SECOND);
      assert.equal(await store.get(k), undefined);
    });

    it(`exactly one of ${CONCURRENT_SWAPS} concurrent compareAndSets wins`, async () => {
      const k = key();
      await store.put(k, 'generation-0', 60);
      const outcomes = await Promise.all(
        Array.from({ length: CONCURRENT_SWAPS }, (_, index) => store.compareAndSet(k, 'generation-0', `winner-${index}`, 60)),
      );
      const winners = outcomes.flatMap((won, index) => (won ? [index] : []));
      assert.equal(winners.length, 1);
      assert.equal(await store.get(k), `winner-${winners[0]}`);
    });

    it('increment counts from 1 and keeps the count as the value', async () => {
      const k = key('limit');
      assert.equal(await store.increment(k, 60), 1);
      assert.equal(await store.increment(k, 60), 2);
      assert.equal(await store.increment(k, 60), 3);
      assert.equal(await store.get(k), '3');
      assert.equal(await store.increment(key('limit'), 60), 1);
    });

    it('increment sets the TTL only when it creates the counter: a fixed window', async () => {
      const k = key('limit');
      assert.equal(await store.increment(k, 1), 1);
      // A longer TTL on a later increment must not stretch the window.
      assert.equal(await store.increment(k, 60), 2);
      await subject.elapse(PAST_ONE_SECOND);
      assert.equal(await store.get(k), undefined);
      assert.equal(await store.increment(k, 60), 1);
      await subject.elapse(PAST_ONE_SECOND);
      assert.equal(await store.increment(k, 1), 2);
    });

    it('increment continues a number put there and keeps its TTL', async () => {
      const k = key('limit');
      await store.put(k, '41', 1);
      assert.equal(await store.increment(k, 60), 42);
      await subject.elapse(PAST_ONE_SECOND);
      assert.equal(await store.get(k), undefined);
    });

    it(`increment loses no count under ${CONCURRENT_TAKES} concurrent increments`, async () => {
      const k = key('limit');
      const counts = await Promise.all(Array.from({ length: CONCURRENT_TAKES }, () => store.increment(k, 60)));
      assert.deepEqual([...counts].sort((a, b) => a - b), Array.from({ length: CONCURRENT_TAKES }, (_, index) => index + 1));
      assert.equal(await store.get(k), String(CONCURRENT_TAKES));
    });

    it('increment refuses a value that is not an integer, as Redis does, and leaves it alone', async () => {
      const k = key('limit');
      await store.put(k, 'not-a-number', 60);
      await assert.rejects(store.increment(k, 60), (error: unknown) => error instanceof StorageUnavailableError && error.reason === 'server_error');
      assert.equal(await store.get(k), 'not-a-number');
    });

    it('addToBoundedSet admits members up to the limit, refuses the next, and counts each member once', async () => {
      const k = key('bounded');
      assert.equal(await store.countSet(k), 0);
      assert.equal(await store.addToBoundedSet(k, 'a', 60, 2), true);
      assert.equal(await store.addToBoundedSet(k, 'a', 60, 2), true, 'a member already there is admitted again, not counted twice');
      assert.equal(await store.addToBoundedSet(k, 'b', 60, 2), true);
      assert.equal(await store.addToBoundedSet(k, 'c', 60, 2), false);
      assert.equal(await store.countSet(k), 2);
      assert.equal(await store.addToBoundedSet(key('bounded'), 'c', 60, 2), true, 'another set has room of its own');
    });

    it('addToBoundedSet forgets each member at its own TTL, so the count stays right as members expire', async () => {
      const k = key('bounded');
      assert.equal(await store.addToBoundedSet(k, 'short', 1, 2), true);
      assert.equal(await store.addToBoundedSet(k, 'long', 60, 2), true);
      assert.equal(await store.addToBoundedSet(k, 'refused', 60, 2), false);
      await subject.elapse(PAST_ONE_SECOND);
      assert.equal(await store.countSet(k), 1);
      assert.equal(await store.addToBoundedSet(k, 'next', 60, 2), true, 'the expired member made room');
      assert.equal(await store.addToBoundedSet(k, 'more', 60, 2), false);
    });

    it('removeFromSet makes room, and removing an absent member is fine', async () => {
      const k = key('bounded');
      await store.addToBoundedSet(k, 'a', 60, 1);
      assert.equal(await store.addToBoundedSet(k, 'b', 60, 1), false);
      await store.removeFromSet(k, 'a');
      await store.removeFromSet(k, 'a');
      assert.equal(await store.countSet(k), 0);
      assert.equal(await store.addToBoundedSet(k, 'b', 60, 1), true);
    });

    it(`addToBoundedSet admits exactly the limit of ${CONCURRENT_TAKES} concurrent adds`, async () => {
      const k = key('bounded');
      const added = await Promise.all(Array.from({ length: CONCURRENT_TAKES }, (_, index) => store.addToBoundedSet(k, `m${index}`, 60, 10)));
      assert.equal(added.filter(Boolean).length, 10);
      assert.equal(await store.countSet(k), 10);
    });

    it('delete removes a value, and deleting an absent key is fine', async () => {
      const k = key();
      await store.put(k, 'v', 60);
      await store.delete(k);
      assert.equal(await store.get(k), undefined);
      await store.delete(k);
    });

    it('keeps the same kind and id apart in different namespaces and kinds', async () => {
      const id = randomUUID();
      const inA = key('code', id, `ns-a-${id}`);
      const inB = key('code', id, `ns-b-${id}`);
      const otherKind = key('token', id, `ns-a-${id}`);
      await store.put(inA, 'in-a', 60);
      assert.equal(await store.get(inB), undefined);
      assert.equal(await store.get(otherKind), undefined);
      await store.put(inB, 'in-b', 60);
      assert.equal(await store.take(inA), 'in-a');
      assert.equal(await store.get(inB), 'in-b');
    });

    it('accepts ":" inside ids without colliding with other keys', async () => {
      const namespace = `ns-${randomUUID()}`;
      await store.put({ namespace, kind: 'a', id: 'b:c' }, 'colon-id', 60);
      assert.equal(await store.get({ namespace, kind: 'a', id: 'b:c' }), 'colon-id');
      await assert.rejects(store.get({ namespace, kind: 'a:b', id: 'c' }), (error: unknown) => error instanceof Error && !(error instanceof StorageUnavailableError));
      assert.equal(await store.get({ namespace, kind: 'a', id: 'b' }), undefined);
    });

    it('keeps stores with different prefixes apart on the same backend', async () => {
      const left = await openExtra(`${prefix}-left`);
      const right = await openExtra(`${prefix}-right`);
      const k = key();
      await left.put(k, 'left', 60);
      assert.equal(await right.get(k), undefined);
      assert.equal(await store.get(k), undefined);
      await right.put(k, 'right', 60);
      assert.equal(await left.get(k), 'left');
    });

    it('refuses malformed keys and TTLs with a plain Error, not an outage', async () => {
      const refusals: Array<() => Promise<unknown>> = [
        () => store.put({ namespace: 'a:b', kind: 'code', id: 'x' }, 'v', 60),
        () => store.put({ namespace: '', kind: 'code', id: 'x' }, 'v', 60),
        () => store.get({ namespace: 'ns', kind: 'co:de', id: 'x' }),
        () => store.get({ namespace: 'ns', kind: '', id: 'x' }),
        () => store.take({ namespace: 'ns', kind: 'code', id: '' }),
        () => store.put(key(), 'v', 0),
        () => store.put(key(), 'v', 1.5),
        () => store.putIfAbsent(key(), 'v', -1),
        () => store.compareAndSet(key(), 'a', 'b', Number.NaN),
        () => store.increment(key(), 0),
        () => store.increment(key(), 2.5),
        () => store.increment({ namespace: 'ns', kind: 'li:mit', id: 'x' }, 60),
        () => store.addToBoundedSet(key('bounded'), 'm', 0, 1),
        () => store.addToBoundedSet(key('bounded'), 'm', 60, 0),
        () => store.addToBoundedSet(key('bounded'), 'm', 60, 1.5),
        () => store.addToBoundedSet(key('bounded'), '', 60, 1),
        () => store.removeFromSet(key('bounded'), ''),
      ];
      for (const refusal of refusals) {
        await assert.rejects(refusal, (error: unknown) => error instanceof Error && !(error instanceof StorageUnavailableError));
      }
    });

    // Whether a listener hears real changes (and stops hearing them) is shown where a store can
    // change state: the Redis tests restart redis-server.
    it('reports no state changes through onState while healthy, and unsubscribing twice is harmless', () => {
      const seen: string[] = [];
      const unsubscribe = store.onState((state) => seen.push(state));
      unsubscribe();
      unsubscribe();
      assert.deepEqual(seen, []);
    });

    it('delivers a published message to each subscriber of its channel only, until it unsubscribes', async () => {
      const namespace = `ns-${randomUUID()}`;
      const channel = { namespace, kind: 'events', id: '/tools' };
      const other = { namespace, kind: 'events', id: '/other' };
      const heard: string[] = [];
      const heardOther: string[] = [];
      let wake: (() => void) | undefined;
      const nextMessage = () => new Promise<void>((resolve) => (wake = resolve));
      const stopFirst = store.subscribe(channel, (message) => {
        heard.push(`first ${message}`);
        wake?.();
      });
      const stopSecond = store.subscribe(channel, (message) => heard.push(`second ${message}`));
      const stopOther = store.subscribe(other, (message) => heardOther.push(message));
      // A Redis subscription is made on its own connection; wait until one round trip shows it is in place.
      for (let attempt = 0; heard.length === 0 && attempt < 100; attempt += 1) {
        const arrived = nextMessage();
        await store.publish(channel, 'probe');
        await Promise.race([arrived, new Promise((resolve) => setTimeout(resolve, 50))]);
      }
      heard.length = 0;
      const arrived = nextMessage();
      await store.publish(channel, 'changed: tools');
      await arrived;
      assert.ok(heard.includes('first changed: tools'));
      stopFirst();
      stopFirst();
      stopSecond();
      // Messages on one connection arrive in order: once `other` hears its message, any late one on `channel` would have come.
      const otherArrived = new Promise<void>((resolve) => {
        const stop = store.subscribe(other, () => {
          stop();
          resolve();
        });
      });
      await store.publish(channel, 'after unsubscribe');
      await store.publish(other, 'elsewhere');
      await otherArrived;
      stopOther();
      assert.ok(!heard.includes('first after unsubscribe') && !heard.includes('second after unsubscribe'), heard.join(', '));
      assert.ok(heard.includes('second changed: tools'), 'every subscriber of the channel hears it');
      assert.ok(!heardOther.includes('changed: tools'), 'another channel does not');
    });

    it('publishes what was left with publishOnClose when it closes, before letting go, and not what was cancelled', async () => {
      const closing = await openExtra(`${prefix}-last-words`);
      const channel = { namespace: `ns-${randomUUID()}`, kind: 'edge', id: 'announce' };
      const heard: string[] = [];
      let wake: (() => void) | undefined;
      closing.subscribe(channel, (message) => {
        heard.push(message);
        wake?.();
      });
      // A Redis subscription is made on its own connection: wait until one round trip shows it is in place.
      for (let attempt = 0; heard.length === 0 && attempt < 100; attempt += 1) {
        const arrived = new Promise<void>((resolve) => (wake = resolve));
        await closing.publish(channel, 'probe');
        await Promise.race([arrived, new Promise((resolve) => setTimeout(resolve, 50))]);
      }
      heard.length = 0;
      closing.publishOnClose(channel, 'first goodbye');
      const cancel = closing.publishOnClose(channel, 'cancelled goodbye');
      closing.publishOnClose(channel, 'last goodbye');
      cancel();
      cancel();
      const last = new Promise<void>((resolve) => (wake = () => heard.includes('last goodbye') && resolve()));
      await closing.close();
      await last;
      assert.deepEqual(heard, ['first goodbye', 'last goodbye']);
      assert.throws(() => closing.publishOnClose(channel, 'too late'), (error: unknown) => error instanceof StorageUnavailableError);
    });

    it('rejects every operation with StorageUnavailableError after close', async () => {
      const closing = await openExtra(`${prefix}-closing`);
      const k = key();
      await closing.put(k, 'v', 60);
      await closing.close();
      await closing.close();
      const operations: Array<() => Promise<unknown>> = [
        ...keyValueOperations(closing, k),
        () => closing.increment(k, 60),
        () => closing.publish(k, 'v'),
        () => closing.addToBoundedSet(k, 'm', 60, 1),
        () => closing.removeFromSet(k, 'm'),
        () => closing.countSet(k),
      ];
      for (const operation of operations) {
        await assert.rejects(operation, (error: unknown) => error instanceof StorageUnavailableError && error.code === 'storage_unavailable');
      }
    });
  });
}
