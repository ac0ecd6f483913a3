import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { McpPaletteError } from '../../lib/core/errors.js';
import type { Logger } from '../../lib/core/logger.js';
import { createStore, parseStorageConfig, type StorageCredentials } from '../../lib/storage/storage-config.js';
import { waitForState } from '../../lib/storage/wait-for-state.js';
import { freePort } from '../support/ports.js';

const SECRET = 'Sup3r-Secret-pw';
const URL_WITH_SECRET = `redis://:${SECRET}@cache.internal:6379/0`;

interface CapturingLogger extends Logger {
  readonly lines: Array<{ level: string; message: string }>;
}

function capturingLogger(): CapturingLogger {
  const lines: Array<{ level: string; message: string }> = [];
  const record = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

function parseFails(
  code: string,
  config: Record<string, unknown>,
  credentials?: StorageCredentials,
  env: Record<string, string | undefined> = {},
): McpPaletteError {
  let caught: unknown;
  try {
    parseStorageConfig(config, credentials, env);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof McpPaletteError, `${JSON.stringify(config)} should throw a palette error`);
  assert.equal(caught.code, code);
  return caught;
}

/** Everything a node file could show or log about the error, stack and params included. */
function assertNoSecret(error: unknown, ...secrets: string[]): void {
  const shown = `${inspect(error, { depth: 5 })} ${JSON.stringify(error)} ${error instanceof McpPaletteError ? JSON.stringify(error.params) : ''}`;
  for (const secret of secrets) assert.ok(!shown.includes(secret), `error text must not contain ${secret}`);
}

// First in the file on purpose: the warning is once per process, so no other test may create a
// memory store before this one.
describe('createStore', () => {
  it('warns once per process that memory storage is for development only', async () => {
    const first = capturingLogger();
    const second = capturingLogger();
    const stores = [
      createStore(parseStorageConfig({}, undefined, {}), first),
      createStore(parseStorageConfig({ mode: 'memory', keyPrefix: 'other' }, undefined, {}), second),
      createStore(parseStorageConfig({}, undefined, {}), second),
    ];
    assert.deepEqual(stores.map((store) => store.mode), ['memory', 'memory', 'memory']);
    const warnings = [...first.lines, ...second.lines].filter((line) => line.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.equal(first.lines.length, 1);
    assert.match(warnings[0]!.message, /development/);
    await Promise.all(stores.map((store) => store.close()));
  });

  it('opens a Redis store for redis settings and never logs the URL or password', { timeout: 20_000 }, async () => {
    const port = await freePort();
    const logger = capturingLogger();
    const store = createStore({ mode: 'redis', keyPrefix: 'mcp', url: `redis://:${SECRET}@127.0.0.1:${port}`, password: undefined }, logger);
    assert.equal(store.mode, 'redis');
    // Nothing listens on the port: the store keeps retrying rather than giving up.
    await waitForState(store, 'reconnecting', 10_000);
    await store.close();
    assert.ok(logger.lines.length > 0);
    for (const { message } of logger.lines) {
      assert.ok(!message.includes(SECRET) && !message.includes(String(port)), `log line leaks connection details: ${message}`);
    }
  });
});

describe('parseStorageConfig', () => {
  it('defaults to memory storage with the prefix "mcp"', () => {
    assert.deepEqual(parseStorageConfig({}, undefined, {}), { mode: 'memory', keyPrefix: 'mcp' });
    assert.deepEqual(parseStorageConfig({ mode: '', keyPrefix: '', urlEnv: '', passwordEnv: null }, {}, {}), { mode: 'memory', keyPrefix: 'mcp' });
  });

  it('ignores credentials in memory mode', () => {
    assert.deepEqual(parseStorageConfig({ mode: 'memory' }, { url: URL_WITH_SECRET, password: SECRET }, {}), { mode: 'memory', keyPrefix: 'mcp' });
  });

  it('accepts key prefixes of letters, digits, "_", "." and "-" up to 64 characters', () => {
    assert.equal(parseStorageConfig({ keyPrefix: ' team-a_1.prod ' }, undefined, {}).keyPrefix, 'team-a_1.prod');
    assert.equal(parseStorageConfig({ keyPrefix: 'x'.repeat(64) }, undefined, {}).keyPrefix, 'x'.repeat(64));
  });

  it('refuses other key prefixes with invalid_key_prefix', () => {
    for (const keyPrefix of ['a:b', 'with space', 'x'.repeat(65), 'ü', '*']) parseFails('invalid_key_prefix', { keyPrefix });
  });

  it('refuses unknown modes with invalid_storage_mode', () => {
    for (const mode of ['REDIS', 'file', 5, {}]) parseFails('invalid_storage_mode', { mode });
  });

  it('reads the Redis URL and password from the credentials', () => {
    const settings = parseStorageConfig({ mode: 'redis', keyPrefix: 'p' }, { url: ' redis://cache:6379 ', password: SECRET }, {});
    assert.deepEqual(settings, { mode: 'redis', keyPrefix: 'p', url: 'redis://cache:6379', password: SECRET });
  });

  it('accepts rediss:// (TLS) and treats a blank password as none', () => {
    const settings = parseStorageConfig({ mode: 'redis' }, { url: 'rediss://cache.example.com:6380', password: '' }, {});
    assert.deepEqual(settings, { mode: 'redis', keyPrefix: 'mcp', url: 'rediss://cache.example.com:6380', password: undefined });
  });

  it('reads the URL and password from MCP_* environment variables, over the credentials', () => {
    const env = { MCP_REDIS_URL: 'redis://from-env:6379', MCP_REDIS_PASSWORD: 'env-password' };
    const settings = parseStorageConfig(
      { mode: 'redis', urlEnv: 'MCP_REDIS_URL', passwordEnv: ' MCP_REDIS_PASSWORD ' },
      { url: 'redis://from-credentials:6379', password: 'credential-password' },
      env,
    );
    assert.deepEqual(settings, { mode: 'redis', keyPrefix: 'mcp', url: 'redis://from-env:6379', password: 'env-password' });
  });

  it('reads process.env when no environment is passed', () => {
    process.env.MCP_STORAGE_TEST_URL = 'redis://process-env:6379';
    try {
      const settings = parseStorageConfig({ mode: 'redis', urlEnv: 'MCP_STORAGE_TEST_URL' }, undefined);
      assert.equal(settings.mode === 'redis' && settings.url, 'redis://process-env:6379');
    } finally {
      delete process.env.MCP_STORAGE_TEST_URL;
    }
  });

  it('refuses environment variable names outside MCP_[A-Z0-9_] with invalid_env_name', () => {
    for (const name of ['REDIS_URL', 'NODE_RED_CREDENTIAL_SECRET', 'PATH', 'mcp_redis_url', 'MCP_', 'MCP_redis', 'MCP_A-B', 'MCP_A.B', `MCP_${'A'.repeat(65)}`, 'XMCP_A']) {
      const viaUrl = parseFails('invalid_env_name', { mode: 'redis', urlEnv: name }, undefined, { [name]: 'redis://x:6379' });
      parseFails('invalid_env_name', { mode: 'redis', passwordEnv: name }, { url: 'redis://x:6379' }, { [name]: SECRET });
      assert.equal(typeof viaUrl.params.name, 'string');
    }
    assert.deepEqual(parseFails('invalid_env_name', { mode: 'redis', urlEnv: 'REDIS_URL' }).params, { name: 'REDIS_URL' });
    assert.deepEqual(parseFails('invalid_env_name', { mode: 'redis', urlEnv: 'NODE_RED_CREDENTIAL_SECRET' }).params, { name: 'NODE_RED_CREDENTIAL_SECRET' });
  });

  it('refuses a bad environment variable name in memory mode too', () => {
    parseFails('invalid_env_name', { mode: 'memory', urlEnv: 'REDIS_URL' });
  });

  it('does not echo a URL or password pasted into an environment variable field', () => {
    const pastedUrl = parseFails('invalid_env_name', { mode: 'redis', urlEnv: URL_WITH_SECRET });
    const pastedPassword = parseFails('invalid_env_name', { mode: 'redis', passwordEnv: SECRET }, { url: 'redis://x:6379' });
    assertNoSecret(pastedUrl, SECRET, URL_WITH_SECRET);
    assertNoSecret(pastedPassword, SECRET);
  });

  it('refuses a missing or empty environment variable with missing_env naming it', () => {
    assert.deepEqual(parseFails('missing_env', { mode: 'redis', urlEnv: 'MCP_REDIS_URL' }, { url: 'redis://x:6379' }, {}).params, { name: 'MCP_REDIS_URL' });
    assert.deepEqual(parseFails('missing_env', { mode: 'redis', urlEnv: 'MCP_REDIS_URL' }, undefined, { MCP_REDIS_URL: '  ' }).params, { name: 'MCP_REDIS_URL' });
    assert.deepEqual(
      parseFails('missing_env', { mode: 'redis', passwordEnv: 'MCP_REDIS_PASSWORD' }, { url: 'redis://x:6379', password: SECRET }, {}).params,
      { name: 'MCP_REDIS_PASSWORD' },
    );
  });

  it('refuses redis mode without a URL with missing_redis_url', () => {
    parseFails('missing_redis_url', { mode: 'redis' }, undefined);
    parseFails('missing_redis_url', { mode: 'redis' }, { url: '  ', password: SECRET });
  });

  it('refuses URLs that are not redis:// or rediss:// with invalid_redis_url, without quoting them', () => {
    for (const url of [`http://:${SECRET}@cache:6379`, `cache:6379?password=${SECRET}`, `redis:/${SECRET}`, `rediss//:${SECRET}@x`, `redis://:${SECRET}@`, `unix:///tmp/${SECRET}.sock`]) {
      const fromCredentials = parseFails('invalid_redis_url', { mode: 'redis' }, { url, password: SECRET });
      const fromEnv = parseFails('invalid_redis_url', { mode: 'redis', urlEnv: 'MCP_REDIS_URL' }, undefined, { MCP_REDIS_URL: url });
      assertNoSecret(fromCredentials, SECRET, url);
      assertNoSecret(fromEnv, SECRET, url);
      assert.deepEqual(fromCredentials.params, {});
    }
  });

  it('keeps the URL and password out of every error it raises', () => {
    const failures = [
      parseFails('missing_env', { mode: 'redis', passwordEnv: 'MCP_PW' }, { url: URL_WITH_SECRET, password: SECRET }, {}),
      parseFails('invalid_key_prefix', { mode: 'redis', keyPrefix: 'a b' }, { url: URL_WITH_SECRET, password: SECRET }),
      parseFails('missing_redis_url', { mode: 'redis' }, { password: SECRET }),
    ];
    for (const failure of failures) assertNoSecret(failure, SECRET, URL_WITH_SECRET);
  });
});

describe('parseStorageConfig in Redis Sentinel mode', () => {
  const base = { mode: 'sentinel', sentinels: 's1.internal:26379, s2.internal:26380,[::1]:26381', sentinelName: 'mymaster' };

  it('reads the sentinels, group name, users and TLS from the config and the passwords from the credentials', () => {
    const settings = parseStorageConfig(
      { ...base, keyPrefix: 'p', username: 'mcp-app', sentinelUsername: 'watcher', tls: true },
      { password: SECRET, sentinelPassword: 'sentinel-secret', url: 'redis://ignored:6379' },
      {},
    );
    assert.deepEqual(settings, {
      mode: 'sentinel',
      keyPrefix: 'p',
      sentinel: {
        sentinels: [
          { host: 's1.internal', port: 26379 },
          { host: 's2.internal', port: 26380 },
          { host: '::1', port: 26381 },
        ],
        name: 'mymaster',
        username: 'mcp-app',
        password: SECRET,
        sentinelUsername: 'watcher',
        sentinelPassword: 'sentinel-secret',
        tls: true,
      },
    });
  });

  it('needs no user, password or TLS: a plain Sentinel group', () => {
    const settings = parseStorageConfig(base, undefined, {});
    assert.ok(settings.mode === 'sentinel');
    assert.deepEqual(
      { ...settings.sentinel, sentinels: settings.sentinel.sentinels.length },
      { sentinels: 3, name: 'mymaster', username: undefined, password: undefined, sentinelUsername: undefined, sentinelPassword: undefined, tls: false },
    );
  });

  it('reads the sentinels and both passwords from MCP_* environment variables, over the config and credentials', () => {
    const settings = parseStorageConfig(
      { ...base, sentinelsEnv: 'MCP_REDIS_SENTINELS', passwordEnv: 'MCP_REDIS_PASSWORD', sentinelPasswordEnv: 'MCP_REDIS_SENTINEL_PASSWORD' },
      { password: 'credential-password', sentinelPassword: 'credential-sentinel-password' },
      { MCP_REDIS_SENTINELS: 'a:1 b:2', MCP_REDIS_PASSWORD: 'env-password', MCP_REDIS_SENTINEL_PASSWORD: 'env-sentinel-password' },
    );
    assert.ok(settings.mode === 'sentinel');
    assert.deepEqual(settings.sentinel.sentinels, [{ host: 'a', port: 1 }, { host: 'b', port: 2 }]);
    assert.equal(settings.sentinel.password, 'env-password');
    assert.equal(settings.sentinel.sentinelPassword, 'env-sentinel-password');
  });

  it('refuses a missing or malformed sentinel list, a missing or malformed group name and bad user names, without quoting them', () => {
    parseFails('missing_sentinels', { ...base, sentinels: ' ' });
    parseFails('missing_env', { ...base, sentinelsEnv: 'MCP_REDIS_SENTINELS' }, undefined, {});
    for (const sentinels of ['s1', 's1:', ':26379', 's1:0', 's1:65536', 's1:26379;s2:26379', `redis://:${SECRET}@s1:26379`, `${SECRET}@s1:26379`]) {
      assertNoSecret(parseFails('invalid_sentinels', { ...base, sentinels }, { password: SECRET }), SECRET);
    }
    parseFails('missing_sentinel_name', { ...base, sentinelName: '' });
    for (const sentinelName of ['my master', 'a:b', 'x'.repeat(65)]) parseFails('invalid_sentinel_name', { ...base, sentinelName });
    parseFails('invalid_redis_user', { ...base, username: 'has space' });
    parseFails('invalid_redis_user', { ...base, sentinelUsername: 'tab\there' });
    parseFails('invalid_env_name', { ...base, sentinelPasswordEnv: 'REDIS_SENTINEL_PASSWORD' });
  });

  it('keeps existing flows as they were: a URL-mode node with no Sentinel fields parses unchanged', () => {
    const settings = parseStorageConfig({ mode: 'redis', keyPrefix: 'p', urlEnv: '', passwordEnv: '' }, { url: 'redis://cache:6379', password: SECRET }, {});
    assert.deepEqual(settings, { mode: 'redis', keyPrefix: 'p', url: 'redis://cache:6379', password: SECRET });
  });
});

describe('parseStorageConfig in Redis Cluster mode', () => {
  const base = { mode: 'cluster', clusterNodes: 'node-1.internal:6379, node-2.internal:6380 [::1]:6381' };

  it('reads the seed nodes, user and TLS from the config and the password from the credentials', () => {
    const settings = parseStorageConfig({ ...base, keyPrefix: 'p', username: 'mcp-app', tls: true }, { password: SECRET, url: 'redis://ignored:6379' }, {});
    assert.ok(settings.mode === 'cluster' && settings.keyPrefix === 'p');
    const { nodes, ...rest } = settings.cluster;
    assert.deepEqual(nodes.map(({ host, port }) => `${host} ${port}`), ['node-1.internal 6379', 'node-2.internal 6380', '::1 6381']);
    assert.deepEqual(rest, { username: 'mcp-app', password: SECRET, tls: true });
  });

  it('reads the nodes and the password from MCP_* environment variables, over the config and credentials', () => {
    const settings = parseStorageConfig(
      { ...base, clusterNodesEnv: 'MCP_REDIS_CLUSTER_NODES', passwordEnv: 'MCP_REDIS_PASSWORD' },
      { password: 'credential-password' },
      { MCP_REDIS_CLUSTER_NODES: 'a:1,b:2', MCP_REDIS_PASSWORD: 'env-password' },
    );
    assert.ok(settings.mode === 'cluster');
    assert.deepEqual(settings.cluster, { nodes: [{ host: 'a', port: 1 }, { host: 'b', port: 2 }], username: undefined, password: 'env-password', tls: false });
  });

  it('refuses missing or malformed node lists and bad user names, without quoting them', () => {
    parseFails('missing_cluster_nodes', { ...base, clusterNodes: '' });
    parseFails('missing_env', { ...base, clusterNodesEnv: 'MCP_REDIS_CLUSTER_NODES' }, undefined, {});
    parseFails('invalid_env_name', { ...base, clusterNodesEnv: 'REDIS_NODES' });
    for (const clusterNodes of ['n1', 'n1:0', 'n1:6379;n2:6379', `redis://:${SECRET}@n1:6379`, `${SECRET}@n1:6379`]) {
      assertNoSecret(parseFails('invalid_cluster_nodes', { ...base, clusterNodes }, { password: SECRET }), SECRET);
    }
    parseFails('invalid_redis_user', { ...base, username: 'has space' });
  });
});
