import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import type { Logger } from '../../lib/core/logger.js';
import { createRedisStore, type RedisStore } from '../../lib/storage/redis-store.js';
import { StorageUnavailableError, type Store, type StoreKey, type StoreState } from '../../lib/storage/store.js';
import { waitForState } from '../../lib/storage/wait-for-state.js';
import { redisServerOnPath, startRedis, type RedisServer } from '../support/redis-server.js';
import { keyValueOperations, runStoreContract } from '../support/store-contract.js';

/** Generous: a reconnect waits at most 2 s between attempts; this only stops a broken test hanging. */
const STATE_TIMEOUT_MS = 15_000;
const NEEDS_OWN_SERVER = !redisServerOnPath() && 'needs redis-server on PATH (REDIS_URL cannot be stopped or password-protected)';

interface CapturingLogger extends Logger {
  readonly lines: string[];
}

function capturingLogger(): CapturingLogger {
  const lines: string[] = [];
  const record = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

async function openReady(url: string, options: { keyPrefix?: string; password?: string; logger?: Logger } = {}): Promise<RedisStore> {
  const store = createRedisStore({ url, logger: options.logger ?? capturingLogger(), keyPrefix: options.keyPrefix, password: options.password });
  await waitForState(store, 'ready', STATE_TIMEOUT_MS);
  return store;
}

function freshKey(): StoreKey {
  return { namespace: `ns-${randomUUID()}`, kind: 'code', id: randomUUID() };
}

function isUnavailable(reason?: string): (error: unknown) => boolean {
  return (error) => error instanceof StorageUnavailableError && (reason === undefined || error.reason === reason);
}

async function assertEveryOperationUnavailable(store: Store, reason?: string): Promise<void> {
  for (const operation of keyValueOperations(store, freshKey())) await assert.rejects(operation, isUnavailable(reason));
}

/** Publishes on `from` until `to`'s listener hears it (a subscription is made on its own connection, asynchronously). */
async function publishUntilHeard(from: RedisStore, to: RedisStore, channel: StoreKey, message: string): Promise<string[]> {
  const heard: string[] = [];
  const stop = to.subscribe(channel, (received) => heard.push(received));
  try {
    for (let attempt = 0; heard.length === 0 && attempt < 200; attempt += 1) {
      await from.publish(channel, message).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return heard;
  } finally {
    stop();
  }
}

// One server for the contract and the sharing tests; outage and password tests start their own.
let shared: Promise<RedisServer> | undefined;
const sharedRedis = () => (shared ??= startRedis());

after(async () => {
  if (shared) await (await shared).stop().catch(() => undefined);
});

runStoreContract('RedisStore', async () => {
  const server = await sharedRedis();
  return {
    open: (keyPrefix) => openReady(server.url, { keyPrefix }),
    elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
});

describe('RedisStore on a real redis-server', { timeout: 60_000 }, () => {
  let server: RedisServer;
  let raw: Redis;

  before(async () => {
    server = await sharedRedis();
    raw = new Redis(server.url);
  });

  after(async () => {
    await raw?.quit();
  });

  it('stores <prefix>:<namespace>:<kind>:<id> with the TTL in Redis, prefix "mcp" by default', async () => {
    const store = await openReady(server.url);
    try {
      const namespace = `ns-${randomUUID()}`;
      await store.put({ namespace, kind: 'token', id: 'hash:1' }, 'record', 60);
      assert.equal(await raw.get(`mcp:${namespace}:token:hash:1`), 'record');
      const ttl = await raw.ttl(`mcp:${namespace}:token:hash:1`);
      assert.ok(ttl > 0 && ttl <= 60, `ttl ${ttl}`);
      await store.compareAndSet({ namespace, kind: 'token', id: 'hash:1' }, 'record', 'next', 30);
      const ttlAfterSwap = await raw.ttl(`mcp:${namespace}:token:hash:1`);
      assert.ok(ttlAfterSwap > 0 && ttlAfterSwap <= 30, `ttl ${ttlAfterSwap}`);
    } finally {
      await store.close();
    }
  });

  it('shares state between two stores with the same prefix, as two Node-RED instances do', async () => {
    const prefix = `shared-${randomUUID().slice(0, 8)}`;
    const first = await openReady(server.url, { keyPrefix: prefix });
    const second = await openReady(server.url, { keyPrefix: prefix });
    try {
      const key = freshKey();
      await first.put(key, 'issued-by-first', 60);
      assert.equal(await second.get(key), 'issued-by-first');
      assert.equal(await second.compareAndSet(key, 'issued-by-first', 'rotated-by-second', 60), true);
      assert.equal(await first.compareAndSet(key, 'issued-by-first', 'rotated-by-first', 60), false);
      const takes = await Promise.all([first.take(key), second.take(key), first.take(key), second.take(key)]);
      assert.deepEqual(takes.filter((value) => value !== undefined), ['rotated-by-second']);
      assert.equal(await first.putIfAbsent(key, 'a', 60), true);
      assert.equal(await second.putIfAbsent(key, 'b', 60), false);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('carries a message published by one store to a subscriber on another, as list changes travel between instances', async () => {
    const prefix = `events-${randomUUID().slice(0, 8)}`;
    const first = await openReady(server.url, { keyPrefix: prefix });
    const second = await openReady(server.url, { keyPrefix: prefix });
    const elsewhere = await openReady(server.url, { keyPrefix: `${prefix}-other` });
    try {
      const channel = { namespace: 'ns', kind: 'list-changed', id: '/tools' };
      const unrelated: string[] = [];
      const stopUnrelated = elsewhere.subscribe(channel, (message) => unrelated.push(message));
      const heard = await publishUntilHeard(first, second, channel, 'tools changed');
      assert.equal(heard[0], 'tools changed');
      stopUnrelated();
      assert.deepEqual(unrelated, [], 'another key prefix is another deployment');
      // The raw channel name follows the key layout.
      const rawHeard = new Promise<string>((resolve) => {
        const subscriber = raw.duplicate();
        subscriber.on('message', (_channel: string, message: string) => {
          resolve(message);
          subscriber.disconnect();
        });
        void subscriber.subscribe(`${prefix}:ns:list-changed:/tools`).then(() => first.publish(channel, 'seen raw'));
      });
      assert.equal(await rawHeard, 'seen raw');
    } finally {
      await Promise.all([first.close(), second.close(), elsewhere.close()]);
    }
  });

  it('turns a command Redis refuses into StorageUnavailableError (server_error), logged by code only', async () => {
    const logger = capturingLogger();
    const store = await openReady(server.url, { logger });
    try {
      const key = freshKey();
      // Someone else's list under our key: Redis answers WRONGTYPE, which is no outage.
      await raw.rpush(`mcp:${key.namespace}:${key.kind}:${key.id}`, 'not-a-string');
      await assert.rejects(store.get(key), isUnavailable('server_error'));
      assert.equal(store.state, 'ready');
      assert.ok(logger.lines.includes('warn: redis storage refused a command (WRONGTYPE)'), logger.lines.join('\n'));
    } finally {
      await store.close();
    }
  });

  it('logs that it is ready without the URL', async () => {
    const logger = capturingLogger();
    const store = await openReady(server.url, { logger });
    await store.close();
    assert.ok(logger.lines.some((line) => /^info: redis storage ready/.test(line)), logger.lines.join('\n'));
    for (const line of logger.lines) assert.ok(!line.includes(String(server.port)) && !line.includes('redis://'), line);
  });
});

describe('RedisStore during a Redis outage', { timeout: 90_000, skip: NEEDS_OWN_SERVER }, () => {
  let server: RedisServer;
  let store: RedisStore;
  const logger = capturingLogger();
  const states: StoreState[] = [];

  before(async () => {
    server = await startRedis();
    store = await openReady(server.url, { logger });
    store.onState((state) => states.push(state));
  });

  after(async () => {
    await store?.close();
    await server?.stop();
  });

  it('rejects operations with StorageUnavailableError and reports reconnecting when Redis stops', async () => {
    const key = freshKey();
    await store.put(key, 'before-outage', 60);
    await server.stop();
    // Straight after the stop the client may not have noticed yet; it must still fail, not hang.
    await assert.rejects(store.get(key), isUnavailable());
    await waitForState(store, 'reconnecting', STATE_TIMEOUT_MS);
    await assertEveryOperationUnavailable(store, 'reconnecting');
    assert.ok(logger.lines.some((line) => /^warn: redis storage unreachable/.test(line)), logger.lines.join('\n'));
  });

  it('recovers by itself when Redis is back, with the same store', async () => {
    await server.restart();
    await waitForState(store, 'ready', STATE_TIMEOUT_MS);
    const key = freshKey();
    await store.put(key, 'after-outage', 60);
    assert.equal(await store.take(key), 'after-outage');
    assert.equal(await store.compareAndSet(key, 'x', 'y', 60), false);
    assert.deepEqual([states[0], states.at(-1)], ['reconnecting', 'ready']);
    assert.ok(logger.lines.some((line) => /^info: redis storage reconnected/.test(line)), logger.lines.join('\n'));
  });

  it('subscribes again by itself when Redis comes back, so channel messages flow again', async () => {
    const publisher = await openReady(server.url);
    try {
      const channel = { namespace: 'ns', kind: 'list-changed', id: '/outage' };
      assert.deepEqual(await publishUntilHeard(publisher, store, channel, 'before'), ['before']);
      const heard: string[] = [];
      const stop = store.subscribe(channel, (message) => heard.push(message));
      await server.restart();
      await waitForState(store, 'ready', STATE_TIMEOUT_MS);
      await waitForState(publisher, 'ready', STATE_TIMEOUT_MS);
      for (let attempt = 0; !heard.includes('after restart') && attempt < 200; attempt += 1) {
        await publisher.publish(channel, 'after restart').catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      stop();
      assert.ok(heard.includes('after restart'), 'the subscription came back with the connection');
    } finally {
      await publisher.close();
    }
  });

  it('times out commands to a hung Redis instead of hanging, and carries on when it answers again', async () => {
    const key = freshKey();
    await store.put(key, 'before-freeze', 60);
    server.freeze();
    try {
      await assert.rejects(store.get(key), isUnavailable('timeout'));
    } finally {
      server.thaw();
    }
    assert.equal(await store.get(key), 'before-freeze');
  });

  it('starts while Redis is down, fails fast, and becomes ready when Redis starts', async () => {
    await server.stop();
    const late = createRedisStore({ url: server.url, logger: capturingLogger() });
    try {
      await waitForState(late, 'reconnecting', STATE_TIMEOUT_MS);
      await assertEveryOperationUnavailable(late, 'reconnecting');
      await server.restart();
      await waitForState(late, 'ready', STATE_TIMEOUT_MS);
      const key = freshKey();
      assert.equal(await late.putIfAbsent(key, 'v', 60), true);
    } finally {
      await late.close();
    }
  });

  it('closes promptly while Redis is down, and is closed afterwards', async () => {
    const closing = await openReady(server.url);
    await server.stop();
    await waitForState(closing, 'reconnecting', STATE_TIMEOUT_MS);
    await closing.close();
    await assertEveryOperationUnavailable(closing, 'closed');
    await server.restart();
  });
});

describe('RedisStore against a password-protected Redis', { timeout: 60_000, skip: NEEDS_OWN_SERVER }, () => {
  const PASSWORD = `right-${randomUUID()}`;
  const WRONG = `wrong-${randomUUID()}`;
  let server: RedisServer;

  before(async () => {
    server = await startRedis({ password: PASSWORD });
  });

  after(async () => {
    await server?.stop();
  });

  it('fails with StorageUnavailableError on a wrong password and never shows it', async () => {
    const logger = capturingLogger();
    const store = createRedisStore({ url: server.url, password: WRONG, logger });
    try {
      await waitForState(store, 'failed', STATE_TIMEOUT_MS);
      let caught: unknown;
      await store.get(freshKey()).catch((error: unknown) => (caught = error));
      assert.ok(isUnavailable('failed')(caught), inspect(caught));
      const shown = `${inspect(caught, { depth: 5 })}\n${logger.lines.join('\n')}`;
      assert.ok(!shown.includes(WRONG) && !shown.includes(PASSWORD), shown);
      assert.ok(logger.lines.some((line) => /^error: .*password/.test(line)), logger.lines.join('\n'));
    } finally {
      await store.close();
    }
  });

  it('fails without a password, and a wrong password in the URL is not logged either', async () => {
    const missing = createRedisStore({ url: server.url, logger: capturingLogger() });
    const logger = capturingLogger();
    const inUrl = createRedisStore({ url: `redis://:${WRONG}@127.0.0.1:${server.port}`, logger });
    try {
      await waitForState(missing, 'failed', STATE_TIMEOUT_MS);
      await waitForState(inUrl, 'failed', STATE_TIMEOUT_MS);
      await assertEveryOperationUnavailable(missing, 'failed');
      for (const line of logger.lines) assert.ok(!line.includes(WRONG), line);
    } finally {
      await Promise.all([missing.close(), inUrl.close()]);
    }
  });

  it('works with the right password as an option or in the URL; the option wins over the URL', async () => {
    const stores = await Promise.all([
      openReady(server.url, { password: PASSWORD }),
      openReady(`redis://:${PASSWORD}@127.0.0.1:${server.port}`),
      openReady(`redis://:${WRONG}@127.0.0.1:${server.port}`, { password: PASSWORD }),
    ]);
    try {
      const key = freshKey();
      await stores[0]!.put(key, 'authenticated', 60);
      assert.equal(await stores[1]!.get(key), 'authenticated');
      assert.equal(await stores[2]!.take(key), 'authenticated');
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
