import { Redis } from 'ioredis';
import { connectedAddress, retryDelay, type SentinelTarget } from './redis-connection.js';
import { STORAGE_DEFAULTS } from './storage-defaults.js';

/** What a `+switch-master` message announces: `<group> <old-ip> <old-port> <new-ip> <new-port>`. */
export interface SwitchAnnouncement {
  readonly group: string;
  readonly host: string;
  readonly port: number;
}

/** The announcement in a `+switch-master` message, or undefined for anything else. */
export function parseSwitchMaster(message: string): SwitchAnnouncement | undefined {
  const parts = message.split(' ');
  if (parts.length !== 5 || parts.some((part) => part === '')) return undefined;
  const port = /^\d{1,5}$/.test(parts[4]!) ? Number(parts[4]) : 0;
  if (port < 1 || port > 65_535) return undefined;
  return { group: parts[0]!, host: parts[3]!, port };
}

/**
 * Whether a connection to `connected` (host:port as connectedAddress renders it, IPv6 in brackets)
 * must move for `announced`: only when it is for our group and names another server. A connection
 * whose address is unknown moves too: asking the sentinels again is never wrong, only slower.
 */
export function mustMove(announced: SwitchAnnouncement, group: string, connected: string | undefined): boolean {
  if (announced.group !== group) return false;
  const host = announced.host.includes(':') ? `[${announced.host}]` : announced.host;
  return connected !== `${host}:${announced.port}`;
}

/**
 * Sentinel mode: moves a store's connections to a new primary as soon as a sentinel announces the
 * switch, and starts one again if ioredis ends it. Used instead of ioredis's own `failoverDetector`,
 * which drops the connection on every `+switch-master` message: of any group, and also one naming the
 * primary the client already reconnected to. The sentinels announce one failover each, up to seconds
 * apart, so a client that had just found the new primary was dropped again, and the calls on it
 * failed after the deployment had recovered (seen here: two disconnects per client in one SIGKILL
 * failover; in CI a worker failed after every worker had been served again).
 *
 * One watch per store: its command connection and its subscriber share one subscription per sentinel,
 * opened with the first connection followed and closed when the last one is closed for good.
 * Messages move only a ready connection: one that is connecting asks the sentinels anyway, and
 * ioredis ends for good a Sentinel client that is disconnected in the middle of that.
 */
export class SentinelSwitchWatch {
  private readonly followed = new Set<Redis>();
  private watchers: Redis[] | undefined;

  constructor(private readonly target: SentinelTarget) {}

  /** Follows `client` until it ends while `closing()` says its store is closing. */
  follow(client: Redis, closing: () => boolean): void {
    this.followed.add(client);
    this.watchers ??= this.target.sentinels.map(({ host, port }) => this.watch(host, port));
    client.on('end', () => {
      if (closing()) return this.unfollow(client);
      // Our retry strategies never give up, so an end we did not ask for is ioredis giving up on the
      // sentinels in a way no option reaches: start again rather than stay down until a redeploy.
      const timer = setTimeout(() => {
        if (!closing() && client.status === 'end') client.connect().catch(() => undefined);
      }, STORAGE_DEFAULTS.redisRetryMaxDelayMs);
      timer.unref();
    });
  }

  private unfollow(client: Redis): void {
    this.followed.delete(client);
    if (this.followed.size > 0) return;
    for (const watcher of this.watchers ?? []) watcher.disconnect();
    this.watchers = undefined;
  }

  private watch(host: string, port: number): Redis {
    const { target } = this;
    const watcher = new Redis({
      host,
      port,
      ...(target.sentinelUsername ? { username: target.sentinelUsername } : {}),
      ...(target.sentinelPassword ? { password: target.sentinelPassword } : {}),
      ...(target.tls ? { tls: {} } : {}),
      connectionName: 'node-red-mcp-sentinel-watch',
      connectTimeout: STORAGE_DEFAULTS.redisConnectTimeoutMs,
      // A sentinel that is down is asked again, forever, and the subscription renewed when it is back.
      retryStrategy: retryDelay,
      maxRetriesPerRequest: null,
      autoResubscribe: true,
    });
    // A sentinel being away is not the store's outage: the command connection reports that.
    watcher.on('error', () => undefined);
    watcher.subscribe('+switch-master').catch(() => undefined);
    watcher.on('message', (channel: string, message: string) => {
      const announced = channel === '+switch-master' ? parseSwitchMaster(message) : undefined;
      if (!announced) return;
      for (const client of this.followed) {
        if (client.status === 'ready' && mustMove(announced, target.name, connectedAddress(client))) client.disconnect(true);
      }
    });
    return watcher;
  }
}
