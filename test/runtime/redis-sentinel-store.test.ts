import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { parseSentinelAddresses } from '../../lib/storage/redis-connection.js';
import { createRedisStore, type RedisStore } from '../../lib/storage/redis-store.js';
import { StorageUnavailableError, type StoreKey } from '../../lib/storage/store.js';
import { waitForState } from '../../lib/storage/wait-for-state.js';
import { startLoad, type Load, type LoadCounts } from '../support/failover-load.js';
import { recordingLogger } from '../support/recording-logger.js';
import { redisServerOnPath } from '../support/redis-server.js';
import { startSentinelDeployment, type SentinelDeployment } from '../support/redis-sentinel.js';

/**
 * RedisStore against a real Sentinel deployment (primary, replica, three sentinels on loopback): it
 * writes where the sentinels say, follows a forced failover and the loss of the primary by itself,
 * fails the operations caught in the switch with StorageUnavailableError (no hang), loses no write
 * it acknowledged, brings its subscriptions back, and logs each failover once.
 */

const NEEDS_REDIS = !redisServerOnPath() && 'needs redis-server on PATH (it runs the sentinels too)';
// A command times out after 2 s (STORAGE_DEFAULTS); anything unsettled well after that hangs.
const HANG_AFTER_MS = 6_000;
const NS = `sentinel-${randomUUID()}`;
// Longer than the sentinels' hello period (2 s), in which every sentinel has announced a failover.
const SETTLE_MS = 4_000;

describe('Redis Sentinel storage follows failovers', { skip: NEEDS_REDIS }, () => {
  let deployment: SentinelDeployment;
  const logs = [recordingLogger(), recordingLogger()];
  let stores: RedisStore[];
  /** Keys a put() was acknowledged for, and the value: what a failover must not lose. */
  const acknowledged = new Map<string, string>();

  before(async () => {
    deployment = await startSentinelDeployment();
    const sentinels = parseSentinelAddresses(deployment.sentinels)!;
    stores = logs.map((logger) => createRedisStore({ sentinel: { sentinels, name: deployment.name, tls: false }, keyPrefix: 'mcptest', logger }));
    await Promise.all(stores.map((store) => waitForState(store, 'ready', 15_000)));
  });
  after(async () => {
    await Promise.all((stores ?? []).map((store) => store.close()));
    await deployment?.stop();
  });

  const key = (id: string): StoreKey => ({ namespace: NS, kind: 'load', id });

  /** Mixed operations as the palette makes them: writes, reads, single-use takes and counters. */
  function mixedLoad() {
    return startLoad({
      workers: 8,
      hangAfterMs: HANG_AFTER_MS,
      isClear: (error) => error instanceof StorageUnavailableError,
      operation: async (worker, sequence) => {
        const store = stores[worker % 2]!;
        const id = `${worker}-${sequence}-${randomUUID()}`;
        await store.put(key(id), id, 300);
        acknowledged.set(id, id);
        assert.equal(await store.get(key(id)), id);
        await store.increment(key(`counter-${worker}`), 300);
      },
    });
  }

  async function assertFollowed(counts: LoadCounts, newPort: number, switches: number): Promise<void> {
    assert.equal(counts.hangs, 0, 'no operation hung');
    assert.deepEqual(counts.otherErrors, [], 'every failure was a StorageUnavailableError');
    assert.ok(counts.recovered, 'every worker was served again after the failover');
    for (const [i, store] of stores.entries()) {
      assert.equal(store.primary?.address, `127.0.0.1:${newPort}`, `store ${i} writes to the new primary`);
      assert.equal(store.primary?.switches, switches);
      const failoverLines = logs[i]!.lines.filter((line) => line.includes('redis storage failover'));
      assert.equal(failoverLines.length, switches, `store ${i} logged each failover once: ${failoverLines.join(' | ')}`);
    }
  }

  /** How many acknowledged writes the current primary does not have (lost in the replication window). */
  async function lostWrites(port: number): Promise<number> {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    try {
      const ids = [...acknowledged.keys()];
      let lost = 0;
      for (let i = 0; i < ids.length; i += 500) {
        const slice = ids.slice(i, i + 500);
        const values = await client.mget(slice.map((id) => `mcptest:${NS}:load:${id}`));
        lost += values.filter((value, j) => value !== slice[j]).length;
      }
      return lost;
    } finally {
      client.disconnect();
    }
  }

  /** Subscribes on store 0 and publishes from store 1 until heard: the subscription is live. */
  async function heardAcross(channel: StoreKey, listen: () => string[]): Promise<boolean> {
    const message = randomUUID();
    for (let attempt = 0; attempt < 100; attempt += 1) {
      await stores[1]!.publish(channel, message).catch(() => 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (listen().includes(message)) return true;
    }
    return false;
  }

  it('writes to the primary the sentinels name, and says which', async () => {
    const port = await deployment.primaryPort();
    for (const [i, store] of stores.entries()) {
      assert.deepEqual({ ...store.primary, since: undefined }, { role: 'primary', address: `127.0.0.1:${port}`, since: undefined, switches: 0 });
      assert.ok(logs[i]!.lines.includes(`info redis storage primary is 127.0.0.1:${port}`), logs[i]!.lines.join('\n'));
    }
  });

  for (const [title, breakIt, switches] of [
    ['SENTINEL FAILOVER', (d: SentinelDeployment) => d.failover(), 1],
    ['SIGKILL of the primary', async (d: SentinelDeployment) => (await d.killPrimary()).promotedPort, 2],
  ] as const) {
    it(`follows ${title} under load: clear errors only, no hang, subscriptions back, logged once`, async () => {
      await deployment.ready();
      const channel = key(`channel-${switches}`);
      const heard: string[] = [];
      const stopListening = stores[0]!.subscribe(channel, (message) => heard.push(message));
      // Stopped in `finally` too: a failed assertion must not leave eight workers running forever.
      let load: Load | undefined;
      try {
        assert.ok(await heardAcross(channel, () => heard), 'the subscription works before the failover');
        acknowledged.clear();
        load = mixedLoad();
        await load.successes(200);
        const started = Date.now();
        const newPort = await breakIt(deployment);
        // Served again: both stores on the new primary, and more operations answered.
        await Promise.all(
          stores.map((store, i) =>
            waitUntil(
              () => store.primary?.address === `127.0.0.1:${newPort}` && store.state === 'ready',
              () => `store ${i} is ${store.state} on ${store.primary?.address}, not on 127.0.0.1:${newPort}:\n${logs[i]!.lines.slice(-15).join('\n')}`,
            ),
          ),
        );
        const servedAfterMs = Date.now() - started;
        // Each worker served again, not only the load as a whole: one of the eight may still be
        // waiting out its command timeout from the switch when the others have answered 200 times.
        await load.everyWorkerServed(3);
        // Then nothing fails any more: the sentinels announce a failover each, seconds apart
        // (hello messages every 2 s), and a late announcement of the primary the store is already on
        // must not drop its connection (ioredis's own failover detector did; sentinel-switch-watch.ts).
        const failedBeforeSettling = load.failures();
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        await load.successes(200);
        assert.equal(load.failures(), failedBeforeSettling, 'nothing failed once every worker was served again');
        const counts = await load.stop();
        await assertFollowed(counts, newPort, switches);
        assert.ok(await heardAcross(channel, () => heard), 'the subscription came back on the new primary');
        const lost = await lostWrites(newPort);
        // Each acknowledged write reached a replica first (WAIT), so the promoted one has them all.
        assert.equal(lost, 0, 'no acknowledged write was lost');
        // The figures docs/redis-sentinel.md quotes (they depend on the machine's timing).
        console.log(
          `# ${title}: ${counts.ok} operations answered, ${counts.clearErrors} failed with StorageUnavailableError, ${counts.hangs} hung, ` +
            `served again ${servedAfterMs} ms after the failover began, ${lost} of ${acknowledged.size} acknowledged writes lost`,
        );
      } finally {
        await load?.stop();
        stopListening();
      }
    });
  }
});

async function waitUntil(check: () => boolean, explain: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(explain());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
