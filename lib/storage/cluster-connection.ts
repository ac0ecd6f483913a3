import { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';

/** host and port of one node (the same shape as a sentinel's address). */
export interface NodeAddress {
  readonly host: string;
  readonly port: number;
}

/** A Redis Cluster: a few of its nodes to start from (the client learns the rest), and who to be. */
export interface ClusterTarget {
  /** Seed nodes; any reachable one tells the client the whole slot map. */
  readonly nodes: readonly NodeAddress[];
  /** The ACL user and password on every node. Never logged. */
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** TLS to every node, as rediss:// is for one URL. */
  readonly tls: boolean;
}

/**
 * A Cluster client with the palette's per-connection options (`base`: no offline queue, command
 * timeout, no resend) on every node connection. `sharded`: the event connection, which listens with
 * SSUBSCRIBE on one connection per primary (ioredis moves those subscriptions when slots move).
 */
export function openCluster(target: ClusterTarget, base: RedisOptions, retryDelay: (attempt: number) => number, sharded: boolean): Cluster {
  const { retryStrategy: _perNode, enableOfflineQueue: _queue, enableAutoPipelining: _batched, ...perNode } = base;
  const options: ClusterOptions = {
    redisOptions: {
      ...perNode,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
    // As for one server: fail at once while the cluster is unreachable instead of queueing (503, never replayed).
    enableOfflineQueue: false,
    // Off on a cluster. An auto-pipeline is redirected only when every command in it got the same
    // MOVED or ASK; during a slot migration the commands of one batch part ways, and ioredis then
    // fails them with the MOVED reply (measured: ~50 of ~8,600 operation rounds during 2 × 3,000
    // migrated slots; none without). On the event connection an auto-pipelined SSUBSCRIBE also went
    // out on a command connection instead of the sharded subscriber, and went deaf when its slot moved.
    enableAutoPipelining: false,
    // Never give up: the store heals when the cluster is back.
    clusterRetryStrategy: (attempt) => retryDelay(attempt),
    // MOVED and ASK (a slot migration) are followed at once; a primary that went away is retried
    // for up to 16 × 100 ms, then the command fails (503), which a failover outlasting that needs.
    maxRedirections: 16,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    // How soon a failover or a finished migration is noticed without a MOVED (the primaries the
    // status names, the sharded subscriptions moved to a slot's new owner): 1 s, not ioredis's 5 s.
    slotsRefreshInterval: 1_000,
    ...(sharded ? { shardedSubscribers: true } : {}),
    // A TLS certificate names the host the cluster announces; keep that name instead of an address
    // resolved from it, as managed clusters (e.g. ElastiCache with TLS) require.
    ...(target.tls ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
  };
  return new Cluster(
    target.nodes.map(({ host, port }) => ({ host, port })),
    options,
  );
}

/** host:port of each primary the client currently knows, sorted: what the status and log name. */
export function clusterPrimaries(cluster: Cluster): string[] {
  return cluster
    .nodes('master')
    .map(({ options }) => (options.host?.includes(':') ? `[${options.host}]:${options.port}` : `${options.host}:${options.port}`))
    .sort();
}
