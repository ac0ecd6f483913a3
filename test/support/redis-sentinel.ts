import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';
import { spawnRedisProcess, stopChild } from './redis-server.js';

/** The group name the sentinels monitor. */
export const SENTINEL_GROUP = 'mcpgroup';

/**
 * A real Redis Sentinel deployment on loopback: one primary, two replicas, three sentinels (quorum 2),
 * with short detection times so a failover takes seconds. Two replicas, as production runs it: after
 * the primary is lost, the promoted replica still has one to replicate to (writes wait for one).
 * `sentinels` is the `host:port,...` list an mcp-redis node takes.
 */
export interface SentinelDeployment {
  readonly name: string;
  readonly sentinels: string;
  /** The port the sentinels currently name as primary. */
  primaryPort(): Promise<number>;
  /** SENTINEL FAILOVER; resolves with the new primary's port once the sentinels name it and it accepts writes. */
  failover(): Promise<number>;
  /** SIGKILL of the current primary; resolves with the promoted replica's port once it accepts writes. */
  killPrimary(): Promise<{ killedPort: number; promotedPort: number }>;
  /**
   * How many promotions the group has seen (the primary's config epoch, the highest any sentinel knows).
   * Under load the sentinels can promote twice for one loss: a failover attempt that times out is
   * followed by another, of another replica.
   */
  configEpoch(): Promise<number>;
  /** Resolves once every live data node but the primary is a replica in sync that every sentinel knows. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

const DOWN_AFTER_MS = 1_000;
const FAILOVER_TIMEOUT_MS = 4_000;
const WAIT_MS = 20_000;

export async function startSentinelDeployment(): Promise<SentinelDeployment> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  const data = new Map<number, ChildProcess>();
  const sentinels: Array<{ port: number; child: ChildProcess }> = [];
  const startData = async (port: number, replicaOf?: number) => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    if (replicaOf !== undefined) args.push('--replicaof', '127.0.0.1', String(replicaOf));
    data.set(port, await spawnRedisProcess(args, port));
  };
  const primary = await freePort();
  await startData(primary);
  for (let i = 0; i < 2; i += 1) await startData(await freePort(), primary);
  for (let i = 0; i < 3; i += 1) {
    const port = await freePort();
    const conf = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_GROUP} 127.0.0.1 ${primary} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_GROUP} ${DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${SENTINEL_GROUP} ${FAILOVER_TIMEOUT_MS}`,
        `sentinel parallel-syncs ${SENTINEL_GROUP} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push({ port, child: await spawnRedisProcess([conf, '--sentinel'], port) });
  }

  const askSentinel = async <T>(run: (client: Redis) => Promise<T>, port = sentinels[0]!.port): Promise<T> => {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await run(client);
    } finally {
      client.disconnect();
    }
  };
  const primaryPort = async (port?: number) =>
    Number(((await askSentinel((client) => client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_GROUP), port)) as string[])[1]);
  const acceptsWrites = async (port: number) => {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.set('sentinel-deployment:probe', '1')) === 'OK';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  };
  const until = async (what: string, check: () => Promise<boolean>) => {
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return;
      await delay(100);
    }
    throw new Error(`sentinel deployment: ${what} did not happen within ${WAIT_MS} ms`);
  };
  const newPrimary = async (from: number) => {
    let to = from;
    await until('the promotion', async () => {
      const named = await Promise.all(sentinels.map(({ port }) => primaryPort(port)));
      to = named[0]!;
      return to !== from && named.every((port) => port === to) && (await acceptsWrites(to));
    });
    return to;
  };

  const ready = async () => {
    await until('a replica in sync, known to every sentinel', async () => {
      const current = await primaryPort();
      for (const { port } of sentinels) {
        const replicas = (await askSentinel((client) => client.call('SENTINEL', 'REPLICAS', SENTINEL_GROUP), port)) as string[][];
        const healthy = replicas.filter((fields) => {
          const record = Object.fromEntries(fields.flatMap((value, i) => (i % 2 === 0 ? [[value, fields[i + 1]]] : [])));
          return record.flags === 'slave' && record['master-link-status'] === 'ok' && Number(record['master-port']) === current;
        });
        const others = (await askSentinel((client) => client.call('SENTINEL', 'SENTINELS', SENTINEL_GROUP), port)) as unknown[];
        const live = [...data.values()].filter((child) => child.exitCode === null && child.signalCode === null).length;
        if (healthy.length < live - 1 || others.length < 2) return false;
      }
      return true;
    });
  };

  await ready();
  return {
    name: SENTINEL_GROUP,
    sentinels: sentinels.map(({ port }) => `127.0.0.1:${port}`).join(','),
    primaryPort: () => primaryPort(),
    async failover() {
      const from = await primaryPort();
      await askSentinel((client) => client.call('SENTINEL', 'FAILOVER', SENTINEL_GROUP));
      return await newPrimary(from);
    },
    async killPrimary() {
      const killedPort = await primaryPort();
      data.get(killedPort)?.kill('SIGKILL');
      return { killedPort, promotedPort: await newPrimary(killedPort) };
    },
    async configEpoch() {
      const epochs = await Promise.all(
        sentinels.map(async ({ port }) => {
          const fields = (await askSentinel((client) => client.call('SENTINEL', 'MASTER', SENTINEL_GROUP), port)) as string[];
          return Number(fields[fields.indexOf('config-epoch') + 1]);
        }),
      );
      return Math.max(...epochs);
    },
    ready,
    async stop() {
      await Promise.all([...sentinels.map(({ child }) => stopChild(child)), ...[...data.values()].map((child) => stopChild(child))]);
    },
  };
}
