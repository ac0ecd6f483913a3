import type { Cluster, Redis } from 'ioredis';
import { LogThrottle } from '../core/log-throttle.js';
import type { Logger } from '../core/logger.js';
import type { StorePrimary } from './primary-watch.js';
import { ClusterFollower } from './cluster-follower.js';
import { RedisChannels } from './redis-channels.js';
import { isClusterTarget, isSentinelTarget, openClient, type RedisClient, type RedisTarget } from './redis-connection.js';
import { isConfigurationError, redisErrorToken } from './redis-errors.js';
import { STORAGE_DEFAULTS } from './storage-defaults.js';
import { assertKeyPrefix, assertLimit, assertMember, assertTtlSeconds, assertValue, renderStoreKey } from './store-arguments.js';
import { SentinelSwitchWatch } from './sentinel-switch-watch.js';
import { SentinelFollower } from './sentinel-follower.js';
import { StoreStateTracker } from './store-state.js';
import { StorageUnavailableError, type Store, type StoreKey, type StoreState } from './store.js';

/**
 * One URL (redis:// or rediss://, may carry user, password and db; `password` wins over the URL's),
 * a Sentinel group or a Cluster. Never logged.
 */
export type RedisStoreOptions = RedisTarget & {
  readonly keyPrefix?: string;
  readonly logger: Logger;
};

// GET-compare-SET must be one step: two bridges refreshing the same session must not both win.
const COMPARE_AND_SET_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0`;

// INCR and the first EXPIRE in one step: a crash between the two would leave a counter that never
// expires (a rate limit stuck at its maximum). TTL -1 means "exists without expiry", i.e. just
// created; checking that instead of EXPIRE NX works on Redis before 7.
const INCREMENT_LUA = `
local count = redis.call('INCR', KEYS[1])
if redis.call('TTL', KEYS[1]) == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return count`;

// A sorted set scored by each member's expiry (ms, by the Redis server's clock, so instances whose
// clocks differ still agree): expired members go first, then the count decides, all in one step so
// two instances adding at once cannot both take the last place. The key lives as long as its
// longest-lived member. Before Redis 5 a script must ask to replicate its effects to call TIME and
// still write; from Redis 5 on that is the default and the call does nothing.
const ADD_TO_BOUNDED_SET_LUA = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]) * 1000, ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1`;

const COUNT_SET_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;

/** ioredis adds defineCommand methods at run time; these are the ones we define. */
interface ScriptCommands {
  mcpCompareAndSet(key: string, expected: string, next: string, ttlSeconds: number): Promise<unknown>;
  mcpIncrement(key: string, ttlSeconds: number): Promise<unknown>;
  mcpAddToBoundedSet(key: string, member: string, ttlSeconds: number, limit: number): Promise<unknown>;
  mcpCountSet(key: string): Promise<unknown>;
}

export function createRedisStore(options: RedisStoreOptions): RedisStore {
  return new RedisStore(options);
}

/**
 * Store over one ioredis connection. Connects at construction and reconnects forever; `state`
 * follows the connection so the config node can show it, and every operation made while it is
 * not `ready` rejects at once with StorageUnavailableError.
 */
export class RedisStore implements Store {
  readonly mode = 'redis' as const;
  /** Typed as one server: a Cluster takes the same single-key commands and routes each by its slot. */
  private readonly client: Redis;
  private readonly scripts: ScriptCommands;
  private readonly tracker: StoreStateTracker;
  private readonly logger: Logger;
  private readonly keyPrefix: string;
  private lastErrorToken: string | undefined;
  private closing: Promise<void> | undefined;
  private readonly target: RedisTarget;
  /** Sentinel mode only: which primary, and how many replicas a write must reach; one URL: as before. */
  private readonly follower: SentinelFollower | undefined;
  /** Cluster mode only: which primaries, and when a failover replaced one. */
  private readonly clusterFollower: ClusterFollower | undefined;
  private readonly channels: RedisChannels;
  private readonly refusedLog = new LogThrottle(60_000);
  /** Rendered channel and message of each publishOnClose not cancelled yet. */
  private readonly lastWords = new Set<{ readonly channel: string; readonly message: string }>();

  constructor(options: RedisStoreOptions) {
    this.keyPrefix = options.keyPrefix ?? STORAGE_DEFAULTS.keyPrefix;
    assertKeyPrefix(this.keyPrefix);
    this.logger = options.logger;
    this.target = targetOf(options);
    this.tracker = new StoreStateTracker('connecting', () => this.logger.warn('a storage state listener threw'));
    const client: RedisClient = openClient(this.target);
    this.client = client as Redis;
    this.follower = isSentinelTarget(options) ? new SentinelFollower(this.client, this.logger) : undefined;
    this.clusterFollower = isClusterTarget(options) ? new ClusterFollower(client as Cluster, this.logger) : undefined;
    // Sentinel mode: both connections follow the sentinels' announcements through one watch.
    const switches = isSentinelTarget(this.target) ? new SentinelSwitchWatch(this.target.sentinel) : undefined;
    this.channels = new RedisChannels(this.target, this.logger, () => this.closing !== undefined, switches);
    this.client.defineCommand('mcpCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET_LUA });
    this.client.defineCommand('mcpIncrement', { numberOfKeys: 1, lua: INCREMENT_LUA });
    this.client.defineCommand('mcpAddToBoundedSet', { numberOfKeys: 1, lua: ADD_TO_BOUNDED_SET_LUA });
    this.client.defineCommand('mcpCountSet', { numberOfKeys: 1, lua: COUNT_SET_LUA });
    this.scripts = this.client as unknown as ScriptCommands;
    this.client.on('ready', () => {
      // Before `ready` is announced, so a status drawn on the state change names the new primary.
      this.follower?.connected();
      this.clusterFollower?.connected();
      this.enter('ready');
    });
    // After an auth or TLS failure every retry fails the same way; stay `failed` until one succeeds.
    this.client.on('reconnecting', () => this.enter(this.tracker.state === 'failed' ? 'failed' : 'reconnecting'));
    this.client.on('error', (error: unknown) => this.noteError(error));
    // Our retryStrategy never gives up, so `end` without close() means ioredis could not even set up
    // a connection (e.g. bad TLS options): nothing will change without a person. Except in Sentinel
    // mode, where the switch watch starts it again (and moves it at each failover).
    switches?.follow(this.client, () => this.closing !== undefined);
    this.client.on('end', () => this.enter(this.follower && this.tracker.state !== 'failed' ? 'reconnecting' : 'failed'));
  }

  get state(): StoreState {
    return this.tracker.state;
  }

  get primary(): StorePrimary | undefined {
    return (this.follower ?? this.clusterFollower)?.primary;
  }

  onPrimary(listener: (primary: StorePrimary) => void): () => void {
    return (this.follower ?? this.clusterFollower)?.onSwitch(listener) ?? (() => undefined);
  }

  async put(key: StoreKey, value: string, ttlSeconds: number): Promise<void> {
    assertValue(value);
    assertTtlSeconds(ttlSeconds);
    const rendered = this.render(key);
    await this.run(() => this.client.set(rendered, value, 'EX', ttlSeconds));
    await this.replicated();
  }

  async putIfAbsent(key: StoreKey, value: string, ttlSeconds: number): Promise<boolean> {
    assertValue(value);
    assertTtlSeconds(ttlSeconds);
    const rendered = this.render(key);
    const written = (await this.run(() => this.client.set(rendered, value, 'EX', ttlSeconds, 'NX'))) === 'OK';
    if (written) await this.replicated();
    return written;
  }

  async get(key: StoreKey): Promise<string | undefined> {
    const rendered = this.render(key);
    return (await this.run(() => this.client.get(rendered))) ?? undefined;
  }

  async take(key: StoreKey): Promise<string | undefined> {
    const rendered = this.render(key);
    const taken = (await this.run(() => this.client.getdel(rendered))) ?? undefined;
    // A take lost with a failover would let a one-time code be used again.
    if (taken !== undefined) await this.replicated();
    return taken;
  }

  async compareAndSet(key: StoreKey, expected: string, next: string, ttlSeconds: number): Promise<boolean> {
    assertValue(expected);
    assertValue(next);
    assertTtlSeconds(ttlSeconds);
    const rendered = this.render(key);
    const swapped = (await this.run(() => this.scripts.mcpCompareAndSet(rendered, expected, next, ttlSeconds))) === 1;
    if (swapped) await this.replicated();
    return swapped;
  }

  async increment(key: StoreKey, ttlSeconds: number): Promise<number> {
    assertTtlSeconds(ttlSeconds);
    const rendered = this.render(key);
    return Number(await this.run(() => this.scripts.mcpIncrement(rendered, ttlSeconds)));
  }

  async addToBoundedSet(key: StoreKey, member: string, ttlSeconds: number, limit: number): Promise<boolean> {
    assertMember(member);
    assertTtlSeconds(ttlSeconds);
    assertLimit(limit);
    const rendered = this.render(key);
    return (await this.run(() => this.scripts.mcpAddToBoundedSet(rendered, member, ttlSeconds, limit))) === 1;
  }

  async removeFromSet(key: StoreKey, member: string): Promise<void> {
    assertMember(member);
    const rendered = this.render(key);
    await this.run(() => this.client.zrem(rendered, member));
  }

  async countSet(key: StoreKey): Promise<number> {
    const rendered = this.render(key);
    return Number(await this.run(() => this.scripts.mcpCountSet(rendered)));
  }

  async publish(channel: StoreKey, message: string): Promise<number> {
    assertValue(message);
    const rendered = this.render(channel);
    return await this.run(() => this.send(rendered, message));
  }

  subscribe(channel: StoreKey, listener: (message: string) => void): () => void {
    const rendered = this.render(channel);
    if (this.closing) throw new StorageUnavailableError('closed');
    return this.channels.listen(rendered, listener);
  }

  publishOnClose(channel: StoreKey, message: string): () => void {
    assertValue(message);
    const words = { channel: this.render(channel), message };
    if (this.closing) throw new StorageUnavailableError('closed');
    this.lastWords.add(words);
    return () => void this.lastWords.delete(words);
  }

  async delete(key: StoreKey): Promise<void> {
    const rendered = this.render(key);
    await this.run(() => this.client.del(rendered));
    await this.replicated();
  }

  onState(listener: (state: StoreState) => void): () => void {
    return this.tracker.subscribe(listener);
  }

  close(): Promise<void> {
    this.closing ??= this.quit();
    return this.closing;
  }

  /** PUBLISH; on a Cluster SPUBLISH, which the listeners' sharded subscriptions hear (see RedisChannels). */
  private send(channel: string, message: string): Promise<number> {
    return this.clusterFollower ? (this.client.spublish(channel, message) as Promise<number>) : this.client.publish(channel, message);
  }

  /**
   * Sentinel mode: the write just made on this connection has reached a replica, or the caller gets
   * StorageUnavailableError (`not_replicated`, a 503) instead of an acknowledgement. Replication is
   * asynchronous, so a write the old primary acknowledged just before a failover is otherwise lost
   * (measured: over a thousand in the ~1.5 s of a SENTINEL FAILOVER). WAIT covers every earlier write
   * of the connection; ReplicaQuorum says how many replicas, and why. Counters, sets and publishes go without: losing one costs a rate-limit count or
   * a message, never a sign-in or a single use.
   */
  private async replicated(): Promise<void> {
    const required = this.follower?.requiredReplicas ?? 0;
    if (required === 0) return;
    const acknowledged = await this.run(() => this.client.wait(required, STORAGE_DEFAULTS.redisReplicaWaitMs));
    if (acknowledged < required) throw new StorageUnavailableError('not_replicated');
  }

  private render(key: StoreKey): string {
    return renderStoreKey(this.keyPrefix, key);
  }

  private async run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closing) throw new StorageUnavailableError('closed');
    try {
      return await operation();
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private unavailable(error: unknown): StorageUnavailableError {
    if (this.closing) return new StorageUnavailableError('closed');
    const token = redisErrorToken(error);
    if (token === 'TIMEOUT') return new StorageUnavailableError('timeout');
    if (error instanceof Error && error.name === 'ReplyError') {
      // The server is up but refused this command (OOM, an old Redis without GETDEL...): no state
      // change will show it, so say what it was, by code only.
      // A misconfigured ACL refuses the same command every few seconds: one line a minute per code.
      this.refusedLog.warn(this.logger, token, `redis storage refused a command (${token})`, (held) => `; ${held} more refusals since the last line`);
      return new StorageUnavailableError('server_error');
    }
    // The connection dropped; `ready` here means ioredis has not yet reported the close.
    const state = this.tracker.state;
    return new StorageUnavailableError(state === 'ready' ? 'reconnecting' : state);
  }

  private noteError(error: unknown): void {
    if (this.closing) return;
    const token = redisErrorToken(error);
    this.lastErrorToken = token;
    this.logger.debug(`redis storage connection error (${token})`);
    if (isConfigurationError(token)) this.enter('failed');
  }

  private enter(next: StoreState): void {
    if (this.closing) return;
    const previous = this.tracker.state;
    if (!this.tracker.set(next)) return;
    const cause = this.lastErrorToken ?? 'connection closed';
    switch (next) {
      case 'ready':
        this.lastErrorToken = undefined;
        this.logger.info(previous === 'connecting' ? 'redis storage ready' : 'redis storage reconnected');
        break;
      case 'reconnecting':
        this.logger.warn(`redis storage unreachable (${cause}); retrying in the background`);
        break;
      case 'failed':
        this.logger.error(failureHint(isConfigurationError(cause), cause));
        break;
      default:
        break;
    }
  }

  private async quit(): Promise<void> {
    this.tracker.clear();
    this.follower?.close();
    this.clusterFollower?.close();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STORAGE_DEFAULTS.redisQuitTimeoutMs);
    });
    // The users' goodbyes go first, and are answered before QUIT (each fails at once when offline).
    const lastWords = [...this.lastWords].map(({ channel, message }) => this.send(channel, message).catch(() => 0));
    this.lastWords.clear();
    try {
      // QUIT lets replies in flight arrive; it rejects at once when offline, and may hang on a stuck server.
      await Promise.race([Promise.all(lastWords).then(() => this.client.quit()), deadline]);
    } catch {
      // Offline: nothing to finish, the disconnect below stops the reconnect timer.
    } finally {
      clearTimeout(timer);
    }
    if (this.client.status !== 'end') this.client.disconnect();
    this.channels.close();
    this.logger.debug('redis storage closed');
  }
}

function targetOf(options: RedisStoreOptions): RedisTarget {
  if (isSentinelTarget(options)) return { sentinel: options.sentinel };
  if (isClusterTarget(options)) return { cluster: options.cluster };
  return { url: options.url, password: options.password };
}

function failureHint(kind: 'auth' | 'tls' | undefined, cause: string): string {
  if (kind === 'auth') return `redis storage refused the credentials (${cause}); check the password`;
  if (kind === 'tls') return `redis storage TLS handshake failed (${cause}); check the rediss:// server certificate`;
  return `redis storage stopped reconnecting (${cause})`;
}
