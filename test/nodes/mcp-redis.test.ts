import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { isStorageUnavailable, type Store, type StoreKey } from '../../lib/storage/store.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { flowOf, helper, messagesOf, runtimeLogText, storageDef, usePalette, waitFor, type TestNode } from './node-helper.js';

const MEMORY_WARNING = /^memory storage is for development only/;
const KEY: StoreKey = { namespace: 'nodetest', kind: 'probe', id: 'one' };

/** Asserts that an operation on a closed store is refused as storage unavailable (reason 'closed'). */
async function assertClosed(store: Store): Promise<void> {
  await assert.rejects(store.get(KEY), (error: unknown) => {
    assert.ok(isStorageUnavailable(error), String(error));
    assert.equal(error.reason, 'closed');
    return true;
  });
  await assert.rejects(store.put(KEY, 'v', 10), (error: unknown) => isStorageUnavailable(error));
}

/** The names of the clients connected to `server` right now (CLIENT LIST), ours excluded. */
async function clientNames(server: RedisServer, password?: string): Promise<string[]> {
  const admin = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0, ...(password ? { password } : {}) });
  try {
    await admin.connect();
    const list = (await admin.client('LIST')) as string;
    const own = String(await admin.client('ID'));
    return list
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.includes(`id=${own} `))
      .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1] ?? '');
  } finally {
    admin.disconnect();
  }
}

async function waitForAsync(probe: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

describe('mcp-redis', () => {
  const nodes = usePalette(['mcp-redis']);

  // First in the file on purpose: the development warning is given once per process.
  it('memory mode: exposes a working memory store and warns once per process that it is for development', async () => {
    await helper.load(nodes, flowOf(storageDef('mem1'), storageDef('mem2', { keyPrefix: 'other' })));
    const first = helper.getNode('mem1');
    const second = helper.getNode('mem2');
    for (const node of [first, second]) {
      assert.ok(node.store, `${node.id} has a store`);
      assert.equal(node.store.mode, 'memory');
      assert.equal(node.store.state, 'ready');
      assert.equal(node.configError, undefined);
      assert.deepEqual(messagesOf(node, 'error'), []);
    }
    const warnings = [...messagesOf(first, 'warn'), ...messagesOf(second, 'warn')].filter((text) => MEMORY_WARNING.test(text));
    assert.equal(warnings.length, 1, 'one warning for the process, not one per node');

    await first.store.put(KEY, 'stored', 60);
    assert.equal(await first.store.get(KEY), 'stored');
    assert.equal(await second.store.get(KEY), undefined, 'each node has its own memory store');

    // A redeploy does not repeat it.
    await helper.unload();
    await helper.load(nodes, flowOf(storageDef('mem3')));
    const third = helper.getNode('mem3');
    assert.equal(third.store?.mode, 'memory');
    assert.deepEqual(messagesOf(third, 'warn').filter((text) => MEMORY_WARNING.test(text)), []);
  });

  it('memory mode: treats an unset mode (a legacy or hand-written flow) as memory', async () => {
    await helper.load(nodes, flowOf(storageDef('mem', { mode: '' })));
    assert.equal(helper.getNode('mem').store?.mode, 'memory');
  });

  it('memory mode: closing the flow closes the store', async () => {
    await helper.load(nodes, flowOf(storageDef('mem')));
    const node = helper.getNode('mem');
    const store = node.store as Store;
    await store.put(KEY, 'v', 60);
    await helper.unload();
    assert.equal(node.store, undefined, 'the node lets go of its store');
    await assertClosed(store);
  });

  it('refuses the env name REDIS_URL with the catalog message and opens no store', async () => {
    await helper.load(nodes, flowOf(storageDef('bad', { mode: 'redis', urlEnv: 'REDIS_URL' })));
    const node = helper.getNode('bad');
    const expected = 'Environment variable REDIS_URL is not allowed: names must start with MCP_ and contain only A-Z, 0-9 and _';
    assert.deepEqual(messagesOf(node, 'error'), [expected]);
    assert.equal(node.configError, expected);
    assert.equal(node.store, undefined);
  });

  it('refuses a non-MCP_ env name in memory mode too', async () => {
    await helper.load(nodes, flowOf(storageDef('bad', { mode: 'memory', passwordEnv: 'NODE_RED_CREDENTIAL_SECRET' })));
    const node = helper.getNode('bad');
    assert.match(node.configError ?? '', /^Environment variable NODE_RED_CREDENTIAL_SECRET is not allowed/);
    assert.equal(node.store, undefined);
  });

  it('refuses redis mode without a URL, and an unknown mode, with the catalog messages', async () => {
    await helper.load(nodes, flowOf(storageDef('nourl', { mode: 'redis' }), storageDef('mode', { mode: 'sqlite' })));
    assert.deepEqual(messagesOf(helper.getNode('nourl'), 'error'), ['Redis storage needs a Redis URL or a URL env variable']);
    assert.deepEqual(messagesOf(helper.getNode('mode'), 'error'), ['Storage must be Memory, Redis, Redis Sentinel or Redis Cluster']);
    assert.equal(helper.getNode('nourl').store, undefined);
    assert.equal(helper.getNode('mode').store, undefined);
  });

  it('refuses a URL that is not redis:// without echoing it', async () => {
    const url = 'https://user:hunter2-secret@redis.example.com:6379';
    await helper.load(nodes, flowOf(storageDef('http', { mode: 'redis' })), { http: { url } });
    const node = helper.getNode('http');
    assert.deepEqual(messagesOf(node, 'error'), ['The Redis URL must start with redis:// or rediss:// and name a host']);
    const logged = runtimeLogText();
    assert.ok(logged.some((line) => line.includes('The Redis URL must start with')), 'the runtime log is being read');
    assert.ok(logged.every((line) => !line.includes('hunter2-secret')));
  });

  describe('redis mode (real redis-server)', () => {
    const PASSWORD = 'pw-for-node-tests-8c1f';
    let redis: RedisServer;

    before(async () => {
      redis = await startRedis({ password: PASSWORD });
    });
    after(() => redis?.stop());

    it('opens a RedisStore from the URL and password credentials; it becomes ready', async () => {
      await helper.load(nodes, flowOf(storageDef('r', { mode: 'redis', keyPrefix: 'nodetest' })), { r: { url: redis.url, password: PASSWORD } });
      const node: TestNode = helper.getNode('r');
      assert.ok(node.store, 'the node has a store');
      assert.equal(node.store.mode, 'redis');
      await waitFor(() => node.store.state === 'ready', `redis store ready (state ${node.store.state})`);
      assert.deepEqual(messagesOf(node, 'error'), []);
      assert.ok(messagesOf(node, 'log').includes('redis storage ready'), JSON.stringify(messagesOf(node, 'log')));

      // It really talks to this server: a value put through the store is there under the prefix.
      await node.store.put(KEY, 'through-redis', 60);
      assert.equal(await node.store.get(KEY), 'through-redis');
      const admin = new Redis(redis.url, { password: PASSWORD, maxRetriesPerRequest: 0 });
      try {
        assert.equal(await admin.get('nodetest:nodetest:probe:one'), 'through-redis');
      } finally {
        admin.disconnect();
      }
      assert.ok((await clientNames(redis, PASSWORD)).includes('node-red-mcp'));

      const logged = runtimeLogText();
      assert.ok(logged.some((line) => line.includes('redis storage ready')), 'the runtime log is being read');
      for (const line of logged) assert.ok(!line.includes(PASSWORD), `the password was logged: ${line}`);
    });

    it('reads the URL from an MCP_ environment variable', async () => {
      const name = 'MCP_NODE_TEST_REDIS_URL';
      process.env[name] = `redis://:${PASSWORD}@127.0.0.1:${redis.port}`;
      try {
        await helper.load(nodes, flowOf(storageDef('env', { mode: 'redis', urlEnv: name })));
        const node = helper.getNode('env');
        await waitFor(() => node.store?.state === 'ready', 'redis store ready');
        assert.ok(runtimeLogText().every((line) => !line.includes(PASSWORD)));
      } finally {
        delete process.env[name];
      }
    });

    it('closing the flow closes the store and its connection', async () => {
      await helper.load(nodes, flowOf(storageDef('r', { mode: 'redis' })), { r: { url: redis.url, password: PASSWORD } });
      const node = helper.getNode('r');
      const store = node.store as Store;
      await waitFor(() => store.state === 'ready', 'redis store ready');
      assert.ok((await clientNames(redis, PASSWORD)).includes('node-red-mcp'));

      await helper.unload();
      assert.equal(node.store, undefined);
      await assertClosed(store);
      await waitForAsync(async () => !(await clientNames(redis, PASSWORD)).includes('node-red-mcp'), 'the store connection to leave redis');
    });

    it('a wrong password makes the store failed and logs a hint without the password', async () => {
      await helper.load(nodes, flowOf(storageDef('r', { mode: 'redis' })), { r: { url: redis.url, password: 'wrong-password-5d2e' } });
      const node = helper.getNode('r');
      await waitFor(() => node.store?.state === 'failed', `store failed (state ${node.store?.state})`);
      await waitFor(() => messagesOf(node, 'error').some((text) => /refused the credentials/.test(text)), 'the credentials hint');
      for (const line of runtimeLogText()) {
        assert.ok(!line.includes('wrong-password-5d2e') && !line.includes(PASSWORD), `a password was logged: ${line}`);
      }
    });
  });
});
