import { Redis, type Cluster, type RedisOptions } from 'ioredis';
import { McpPaletteError } from '../core/errors.js';
import { openCluster, type ClusterTarget } from './cluster-connection.js';
import { STORAGE_DEFAULTS } from './storage-defaults.js';

export interface SentinelAddress {
  readonly host: string;
  readonly port: number;
}

/** A Sentinel group: the sentinels to ask, the group (master) name they watch, and who to be. */
export interface SentinelTarget {
  readonly sentinels: readonly SentinelAddress[];
  /** The group name of `sentinel monitor <name> ...`. */
  readonly name: string;
  /** The ACL user and password on the data nodes (primary and replicas). Never logged. */
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** The ACL user and password on the sentinels themselves. Never logged. */
  readonly sentinelUsername?: string | undefined;
  readonly sentinelPassword?: string | undefined;
  /** TLS to the sentinels and to the data nodes, as rediss:// is for one URL. */
  readonly tls: boolean;
}

/** Where a store connects: one URL (redis:// or rediss://), whichever primary a Sentinel group names, or a Cluster. */
export type RedisTarget =
  | { readonly url: string; readonly password?: string | undefined }
  | { readonly sentinel: SentinelTarget }
  | { readonly cluster: ClusterTarget };

/** One server or a Sentinel-found primary (Redis), or every primary of a Cluster. */
export type RedisClient = Redis | Cluster;

const CLIENT_OPTIONS: RedisOptions = Object.freeze({
  // Fail fast while disconnected: a queued command would hold an OAuth request open for the whole
  // outage, and a replayed GETDEL or CAS after reconnect could apply twice. Callers answer 503 instead.
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  commandTimeout: STORAGE_DEFAULTS.redisCommandTimeoutMs,
  connectTimeout: STORAGE_DEFAULTS.redisConnectTimeoutMs,
  // Always a number, so ioredis never gives up: the store heals by itself when Redis returns.
  retryStrategy: retryDelay,
  connectionName: 'node-red-mcp',
  // Commands issued in one turn of the event loop (the publishes of relayed calls and answers, token
  // lookups of concurrent requests) go out in one write: measured with the bench's relay phase, Redis
  // CPU per relayed call fell from about 35 to 7 µs and the edge's by a quarter. Not a MULTI: each
  // command stays on its own, and while disconnected each still fails at once (no offline queue).
  enableAutoPipelining: true,
});

/** Never gives up: a store heals by itself when Redis (or a sentinel) is back. */
export function retryDelay(attempt: number): number {
  return Math.min(attempt * STORAGE_DEFAULTS.redisRetryStepMs, STORAGE_DEFAULTS.redisRetryMaxDelayMs);
}

export function isSentinelTarget(target: RedisTarget): target is { readonly sentinel: SentinelTarget } {
  return 'sentinel' in target;
}

export function isClusterTarget(target: RedisTarget): target is { readonly cluster: ClusterTarget } {
  return 'cluster' in target;
}

/**
 * A new ioredis connection to the target; `overrides` set per-connection options (names, pub/sub).
 * `events`: the connection that listens (on a Cluster, with sharded subscriptions).
 */
export function openClient(target: RedisTarget, overrides: RedisOptions = {}, events = false): RedisClient {
  if (isClusterTarget(target)) return openCluster(target.cluster, { ...CLIENT_OPTIONS, ...overrides }, retryDelay, events);
  if (isSentinelTarget(target)) return new Redis({ ...CLIENT_OPTIONS, ...overrides, ...sentinelOptions(target.sentinel) });
  const { url, password } = target;
  try {
    // ioredis lets URL fields win over options, so an explicit password must be taken out of the URL.
    return new Redis(password ? withoutUrlPassword(url) : url, { ...CLIENT_OPTIONS, ...overrides, ...(password ? { password } : {}) });
  } catch {
    // The driver's message may quote the URL, and with it a password.
    throw new McpPaletteError('invalid_redis_url', 'the Redis URL is not valid');
  }
}

function sentinelOptions(target: SentinelTarget): RedisOptions {
  return {
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.name,
    role: 'master',
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.sentinelUsername ? { sentinelUsername: target.sentinelUsername } : {}),
    ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
    // ioredis uses `tls` for the data nodes only together with enableTLSForSentinelMode.
    ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    // Off: followSentinelSwitches (sentinel-switch-watch.ts) does its job without its flaw. Without
    // either, a client stays on a primary that SENTINEL FAILOVER demotes, for the ~10 s until the old
    // primary learns it (measured in issue #29: 102,895 acknowledged writes lost; with it ~1.3 s).
    failoverDetector: false,
    sentinelCommandTimeout: STORAGE_DEFAULTS.redisCommandTimeoutMs,
    // Like retryStrategy: never give up, so a store heals when the sentinels are back.
    sentinelRetryStrategy: retryDelay,
    // A demoted primary answers writes with READONLY: go and ask the sentinels again at once instead
    // of failing every write until the detector or a disconnect moves us. 1 = reconnect, never resend.
    reconnectOnError: (error: Error) => (error.message.startsWith('READONLY') ? 1 : false),
  };
}

function withoutUrlPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password === '') return url;
  parsed.password = '';
  return parsed.toString();
}

export type { ClusterTarget } from './cluster-connection.js';

const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;

/**
 * `host:port` entries separated by commas, spaces or new lines (`[::1]:26379` for IPv6); undefined
 * when any entry is malformed or none is given, so a typo is a configuration error, not a sentinel
 * (or cluster seed node) that is silently left out.
 */
export function parseSentinelAddresses(text: string): SentinelAddress[] | undefined {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0) return undefined;
  const addresses: SentinelAddress[] = [];
  for (const entry of entries) {
    const match = HOST_PORT.exec(entry);
    const port = Number(match?.[3]);
    if (!match || port < 1 || port > 65_535) return undefined;
    addresses.push({ host: match[1] ?? match[2]!, port });
  }
  return addresses;
}

/** host:port of the server a ready connection talks to, as the socket sees it; never credentials. */
export function connectedAddress(client: Redis): string | undefined {
  const stream = client.stream as { remoteAddress?: string; remotePort?: number } | undefined;
  if (!stream?.remoteAddress || stream.remotePort === undefined) return undefined;
  const host = stream.remoteAddress.includes(':') ? `[${stream.remoteAddress}]` : stream.remoteAddress;
  return `${host}:${stream.remotePort}`;
}
