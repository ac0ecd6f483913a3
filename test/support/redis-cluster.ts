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
 * A real Redis Cluster on loopback: three primaries (no replicas), made with `redis-cli --cluster
 * create`. `nodes` is the `host:port,...` list an mcp-redis node takes.
 */
export interface ClusterDeployment {
  readonly nodes: string;
  readonly ports: readonly number[];
  /**
   * Moves `slots` slots (and their keys) from the node on `fromPort` to the node on `toPort` with
   * `redis-cli --cluster reshard`: each slot goes MIGRATING/IMPORTING, its keys MIGRATE in small
   * batches (clients get ASK meanwhile), then the slot is handed over (MOVED from then on).
   * Resolves with how long it took.
   */
  reshard(fromPort: number, toPort: number, slots: number): Promise<number>;
  /** How many slots the node on `port` owns. */
  slotsOf(port: number): Promise<number>;
  /** A plain client of the node on `port` (caller disconnects it). */
  client(port: number): Redis;
  stop(): Promise<void>;
}

const NODE_TIMEOUT_MS = 2_000;
const WAIT_MS = 20_000;

export async function startClusterDeployment(): Promise<ClusterDeployment> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  try {
    for (let i = 0; i < 3; i += 1) {
      const port = await freePort();
      const busPort = await freePort();
      const args = [
        '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
        '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-port', String(busPort),
        '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
      ];
      children.push(await spawnRedisProcess(args, port));
      ports.push(port);
    }
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: WAIT_MS });
  } catch (error) {
    await Promise.all(children.map((child) => stopChild(child)));
    throw error;
  }
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
  // Every node agrees the cluster is whole (state ok, all slots served).
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const states = await Promise.all(ports.map((port) => ask(port, (redis) => redis.cluster('INFO')).catch(() => '')));
    if (states.every((info) => /cluster_state:ok/.test(String(info)) && /cluster_slots_ok:16384/.test(String(info)))) break;
    if (Date.now() > deadline) throw new Error('redis cluster: not ok within 20 s');
    await delay(100);
  }
  const idOf = (port: number) => ask(port, (redis) => redis.cluster('MYID') as Promise<string>);
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    async reshard(fromPort, toPort, slots) {
      const started = Date.now();
      const [from, to] = [await idOf(fromPort), await idOf(toPort)];
      await run(
        'redis-cli',
        ['--cluster', 'reshard', `127.0.0.1:${fromPort}`, '--cluster-from', from, '--cluster-to', to, '--cluster-slots', String(slots), '--cluster-yes', '--cluster-pipeline', '5'],
        { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      );
      return Date.now() - started;
    },
    async slotsOf(port) {
      const id = await idOf(port);
      const shards = await ask(port, (redis) => redis.cluster('SLOTS'));
      return shards.filter((shard) => shard[2]?.[2] === id).reduce((sum, [start, end]) => sum + end - start + 1, 0);
    },
    client,
    async stop() {
      await Promise.all(children.map((child) => stopChild(child)));
    },
  };
}
