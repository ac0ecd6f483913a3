import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../core/logger.js';
import { isClusterTarget, openClient, type RedisClient, type RedisTarget } from './redis-connection.js';
import { redisErrorToken } from './redis-errors.js';
import type { SentinelSwitchWatch } from './sentinel-switch-watch.js';

/**
 * The listening side of a Redis store: a second connection, opened with the first subscription (a
 * subscribed Redis connection runs nothing else), and the listeners of each rendered channel.
 *
 * One server or Sentinel: SUBSCRIBE, and every (re)connect subscribes to the channels listened to at
 * that moment, so a subscription made during an outage, or lost with a connection, comes back with
 * it; nothing is queued meanwhile. Cluster: sharded pub/sub (SSUBSCRIBE, Redis 7), each channel on
 * the primary that owns its slot, so a message crosses one shard instead of the whole cluster bus, and
 * SPUBLISH counts exactly the listeners of that shard (a plain PUBLISH on a cluster counts only the
 * receiving node's). ioredis keeps one subscriber connection per primary and moves a channel's
 * subscription when its slot moves (a migration or a failover, seen at the next slot refresh).
 */
export class RedisChannels {
  private subscriber: RedisClient | undefined;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();
  /** Cluster: channels ioredis's sharded subscriber group has taken (it resubscribes them itself). */
  private readonly handedOver = new Set<string>();
  private readonly target: RedisTarget;
  private readonly logger: Logger;
  private readonly closing: () => boolean;
  private readonly sharded: boolean;
  /** Sentinel mode: moves the subscriber at a failover, with the store's command connection. */
  private readonly switches: SentinelSwitchWatch | undefined;

  constructor(target: RedisTarget, logger: Logger, closing: () => boolean, switches?: SentinelSwitchWatch) {
    this.switches = switches;
    this.target = target;
    this.logger = logger;
    this.closing = closing;
    this.sharded = isClusterTarget(target);
  }

  /** Adds a listener of the rendered channel; returns its removal (safe to call twice). */
  listen(channel: string, listener: (message: string) => void): () => void {
    const subscriber = (this.subscriber ??= this.open());
    let listeners = this.listeners.get(channel);
    if (!listeners) {
      this.listeners.set(channel, (listeners = new Set()));
      // While disconnected, the `ready` handler subscribes it with the others.
      if (subscriber.status === 'ready') this.subscribe(subscriber, [channel]);
    }
    const own = (message: string) => listener(message);
    listeners.add(own);
    let live = true;
    return () => {
      if (!live) return;
      live = false;
      listeners.delete(own);
      if (listeners.size > 0 || this.listeners.get(channel) !== listeners) return;
      this.listeners.delete(channel);
      this.handedOver.delete(channel);
      if (this.closing()) return;
      const leaving = this.sharded ? (subscriber as Cluster).sunsubscribe(channel) : (subscriber as Redis).unsubscribe(channel);
      leaving.catch(() => undefined);
    };
  }

  close(): void {
    this.listeners.clear();
    this.handedOver.clear();
    this.subscriber?.disconnect();
  }

  private open(): RedisClient {
    const subscriber = openClient(this.target, { autoResubscribe: false, connectionName: 'node-red-mcp-events' }, true);
    this.switches?.follow(subscriber as Redis, this.closing);
    subscriber.on('ready', () => this.subscribe(subscriber, this.pending()));
    // Cluster: a channel whose SSUBSCRIBE failed (no subscriber for its slot yet) is tried again at
    // each slot refresh, until ioredis's subscriber group holds it.
    // (The first refresh comes before `ready`, when nothing can be sent yet.)
    if (this.sharded) subscriber.on('refresh', () => subscriber.status === 'ready' && this.subscribe(subscriber, this.pending()));
    subscriber.on(this.sharded ? 'smessage' : 'message', (channel: string, message: string) => this.deliver(channel, message));
    // Outages are reported once, by the command connection's state; this one only reconnects.
    subscriber.on('error', (error: unknown) => this.logger.debug(`redis event connection error (${redisErrorToken(error)})`));
    return subscriber;
  }

  /** One server: every channel (a new connection holds none). Cluster: those not handed over yet. */
  private pending(): string[] {
    return [...this.listeners.keys()].filter((channel) => !this.handedOver.has(channel));
  }

  private deliver(channel: string, message: string): void {
    for (const listener of this.listeners.get(channel) ?? []) {
      try {
        listener(message);
      } catch (error) {
        this.logger.warn(`a storage channel listener threw: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  private subscribe(subscriber: RedisClient, channels: string[]): void {
    // One SUBSCRIBE per channel: Redis refuses a whole SUBSCRIBE when its ACL forbids any one of the
    // channels, and an edge's user may listen only to its own site's channels. (SSUBSCRIBE takes
    // only channels of one slot anyway.)
    for (const channel of channels) {
      const joining = this.sharded ? (subscriber as Cluster).ssubscribe(channel) : (subscriber as Redis).subscribe(channel);
      joining.then(
        () => {
          if (this.sharded && this.listeners.has(channel)) this.handedOver.add(channel);
        },
        (error: unknown) => {
          const token = redisErrorToken(error);
          // A refusal (NOPERM) is a configuration problem no reconnect will fix: say which channel.
          if (error instanceof Error && error.name === 'ReplyError') this.logger.warn(`redis refused a subscription to ${channel} (${token})`);
          else this.logger.debug(`redis subscribe failed (${token})`);
        },
      );
    }
  }
}
