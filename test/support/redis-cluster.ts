import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';
import { spawnRedisProcess, stopChild } from './redis-server.js';

const run = promisify(execFile);

/**
 * A real Redis Cluster on loopback: three primaries, each with `replicas` replicas (default none),
 * made with `redis-cli --cluster create`. `nodes` is the `host:port,...` list an mcp-redis node
 * takes (every node, as a user names some of them).
 */
export interface ClusterDeployment {
  readonly nodes: string;
  /** The three primaries as created. */
  readonly ports: readonly number[];
  /**
   * SIGKILL of the node on `port` (a primary); resolves once one of its replicas owns its slots and
   * every live node says the cluster is ok, with that replica's port and how long it took.
   */
  killPrimary(port: number): Promise<{ promotedPort: number; promotedMs: number }>;
  /**
   * Moves `slots` slots (and their keys) from the node on `fromPort` to the node on `toPort` with
   * `redis-cli --cluster reshard`: each slot goes MIGRATING/IMPORTING, its keys MIGRATE in small
   * batches (clients get ASK meanwhile), then the slot is handed over (MOVED from then on).
   * Resolves with how long it took.
   */
  reshard(fromPort: number, toPort: number, slots: number): Promise<number>;
  /** The port of the primary that owns `key`'s slot now. */
  primaryOf(key: string): Promise<number>;
  /** How many slots the node on `port` owns. */
  slotsOf(port: number): Promise<number>;
  /** A plain client of the node on `port` (caller disconnects it). */
  client(port: number): Redis;
  stop(): Promise<void>;
}

const NODE_TIMEOUT_MS = 2_000;
const WAIT_MS = 20_000;

export async function startClusterDeployment(options: { replicas?: number } = {}): Promise<ClusterDeployment> {
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const children = new Map<number, ChildProcess>();
  const ports: number[] = [];
  try {
    for (let i = 0; i < 3 * (1 + replicas); i += 1) {
      const port = await freePort();
      const busPort = await freePort();
      const args = [
        '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
        '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-port', String(busPort),
        '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
      ];
      children.set(port, await spawnRedisProcess(args, port));
      ports.push(port);
    }
    // redis-cli makes the first three nodes the primaries and the rest their replicas.
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: WAIT_MS });
  } catch (error) {
    await Promise.all([...children.values()].map((child) => stopChild(child)));
    throw error;
  }
  const alive = () => ports.filter((port) => !children.get(port)!.killed && children.get(port)!.exitCode === null);
  const client = (port: number) => {
    const redis = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: () => null });
    redis.on('error', () => undefined);
    return redis;
  };
  const ask = async <T>(port: number, work: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = client(port);
    try {
      return await work(redis);
    } finally {
      redis.disconnect();
    }
  };
  // Every live node agrees the cluster is whole (state ok, all slots served), and `also` holds.
  const whole = async (also: () => Promise<boolean> = async () => true) => {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const states = await Promise.all(alive().map((port) => ask(port, (redis) => redis.cluster('INFO')).catch(() => '')));
      if (states.every((info) => /cluster_state:ok/.test(String(info)) && /cluster_slots_ok:16384/.test(String(info))) && (await also().catch(() => false))) return;
      if (Date.now() > deadline) throw new Error('redis cluster: not ok within 20 s');
      await delay(100);
    }
  };
  // A replica can take over from its primary only once it has synced: wait for every link to be up.
  await whole(async () => {
    const infos = await Promise.all(ports.slice(3).map((port) => ask(port, (redis) => redis.info('replication'))));
    return infos.every((info) => /master_link_status:up/.test(info));
  });
  const primaries = ports.slice(0, 3);
  const settled = async () => {
    const deadline = Date.now() + WAIT_MS;
    while (!(await run('redis-cli', ['--cluster', 'check', `127.0.0.1:${alive()[0]}`], { timeout: WAIT_MS }).then(() => true, () => false))) {
      if (Date.now() > deadline) throw new Error('redis cluster: the nodes did not agree on the configuration within 20 s');
      await delay(200);
    }
  };
  const idOf = (port: number) => ask(port, (redis) => redis.cluster('MYID') as Promise<string>);
  /** The port serving each slot range, as a live node sees it. */
  const owners = async () => (await ask(alive()[0]!, (redis) => redis.cluster('SLOTS'))).map((shard) => Number(shard[2]?.[1]));
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports: primaries,
    async killPrimary(port) {
      const before = new Set(await owners());
      const started = Date.now();
      children.get(port)?.kill('SIGKILL');
      let promotedPort = 0;
      await whole(async () => {
        const now = await owners();
        promotedPort = now.find((owner) => !before.has(owner)) ?? 0;
        return promotedPort !== 0 && !now.includes(port);
      });
      return { promotedPort, promotedMs: Date.now() - started };
    },
    async reshard(fromPort, toPort, slots) {
      const started = Date.now();
      // redis-cli refuses to reshard until every node (replicas too) knows the last move.
      await settled();
      const [from, to] = [await idOf(fromPort), await idOf(toPort)];
      await run(
        'redis-cli',
        ['--cluster', 'reshard', `127.0.0.1:${fromPort}`, '--cluster-from', from, '--cluster-to', to, '--cluster-slots', String(slots), '--cluster-yes', '--cluster-pipeline', '5'],
        { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      );
      return Date.now() - started;
    },
    async primaryOf(key) {
      return await ask(alive()[0]!, async (redis) => {
        const slot = Number(await redis.cluster('KEYSLOT', key));
        const shard = (await redis.cluster('SLOTS')).find(([start, end]) => start <= slot && slot <= end);
        return Number(shard?.[2]?.[1]);
      });
    },
    async slotsOf(port) {
      const id = await idOf(port);
      const shards = await ask(port, (redis) => redis.cluster('SLOTS'));
      return shards.filter((shard) => shard[2]?.[2] === id).reduce((sum, [start, end]) => sum + end - start + 1, 0);
    },
    client,
    async stop() {
      await Promise.all([...children.values()].map((child) => stopChild(child)));
    },
  };
}
