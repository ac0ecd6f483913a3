import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSentinelAddresses } from '../../lib/storage/redis-connection.js';
import { createRedisStore, type RedisStore } from '../../lib/storage/redis-store.js';
import { StorageUnavailableError, type StoreKey } from '../../lib/storage/store.js';
import { waitForState } from '../../lib/storage/wait-for-state.js';
import { startLoad, type Load } from '../support/failover-load.js';
import { repoRoot } from '../support/node-red-process.js';
import { recordingLogger } from '../support/recording-logger.js';
import { startClusterDeployment, type ClusterDeployment } from '../support/redis-cluster.js';
import { redisServerOnPath } from '../support/redis-server.js';

/**
 * RedisStore against a real Redis Cluster (three primaries on loopback): every operation of the
 * Store contract, from two stores at once, while thousands of slots move between the primaries
 * (MIGRATING/IMPORTING, keys moved in batches: ASK, then MOVED). Counted: answers, clear errors
 * (StorageUnavailableError), anything else, hangs, acknowledged writes lost, single-use takes that
 * two callers both won. Sharded pub/sub reaches the other store and counts its listener.
 */

const NEEDS_REDIS = !redisServerOnPath() && 'needs redis-server and redis-cli on PATH';
// A command times out after 2 s (STORAGE_DEFAULTS); anything unsettled well after that hangs.
const HANG_AFTER_MS = 6_000;
// Slots moved per step (of the 5,461 the first primary owns): about 8 s a step on a loaded 2-core machine.
const SLOTS = 2_000;
const NS = `cluster-${randomUUID()}`;

/** The edge and hub users of docs/redis-cluster.md, for this suite's key prefix (what the test proves is enough). */
function recipe(user: 'plant-a' | 'hub'): { line: string; password: string } {
  const page = readFileSync(join(repoRoot, 'docs', 'redis-cluster.md'), 'utf8');
  const line = new RegExp(`^ACL SETUSER (${user} on >(\\S+) .+)$`, 'm').exec(page);
  assert.ok(line, `docs/redis-cluster.md gives the ${user} user`);
  return { line: line[1]!.replaceAll('mcp:', 'mcptest:'), password: line[2]! };
}

describe('Redis Cluster storage through slot migrations', { skip: NEEDS_REDIS }, () => {
  let deployment: ClusterDeployment;
  const logs = [recordingLogger(), recordingLogger()];
  let stores: RedisStore[];

  before(async () => {
    deployment = await startClusterDeployment();
    const nodes = parseSentinelAddresses(deployment.nodes)!.slice(0, 1);
    // One seed node is enough: the client learns the others from it.
    stores = logs.map((logger) => createRedisStore({ cluster: { nodes, tls: false }, keyPrefix: 'mcptest', logger }));
    await Promise.all(stores.map((store) => waitForState(store, 'ready', 15_000)));
  });
  after(async () => {
    await Promise.all((stores ?? []).map((store) => store.close()));
    await deployment?.stop();
  });

  const key = (kind: string, id: string): StoreKey => ({ namespace: NS, kind, id });

  /** Publishes from store 1 until store 0's listener heard it; returns what the last publish counted. */
  async function heardAcross(channel: StoreKey, heard: string[]): Promise<number> {
    const message = randomUUID();
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const count = await stores[1]!.publish(channel, message).catch(() => 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (heard.includes(message)) return count;
    }
    throw new Error('the message never arrived');
  }

  it('names the three primaries, and logs them once', async () => {
    const primaries = deployment.ports.map((port) => `127.0.0.1:${port}`).sort().join(',');
    for (const [i, store] of stores.entries()) {
      assert.deepEqual({ ...store.primary, since: undefined }, { role: 'cluster', address: primaries, since: undefined, switches: 0 });
      assert.ok(logs[i]!.lines.includes(`info redis storage cluster primaries are ${primaries}`), logs[i]!.lines.join('\n'));
    }
  });

  it('sharded pub/sub: a listener on another instance hears each message, and the publish counts it', async () => {
    const channel = key('channel', 'counted');
    const heard: string[] = [];
    const stop = stores[0]!.subscribe(channel, (message) => heard.push(message));
    try {
      // SPUBLISH on the slot's primary counts that shard's listeners; a plain PUBLISH would count
      // only those of whichever node took it (0 on two nodes of three).
      assert.equal(await heardAcross(channel, heard), 1);
      for (let i = 0; i < 20; i += 1) assert.equal(await stores[1]!.publish(key('channel', `counted-${i}`), 'x'), 0, 'nobody listens there');
    } finally {
      stop();
    }
  });

  it("the docs' edge and hub users: the edge listens and answers on its own site's channels and nothing else; the hub's storage works", async () => {
    const [edgeUser, hubUser] = [recipe('plant-a'), recipe('hub')];
    for (const port of deployment.ports) {
      const admin = deployment.client(port);
      try {
        for (const { line } of [edgeUser, hubUser]) await admin.call('ACL', 'SETUSER', ...line.split(' '));
      } finally {
        admin.disconnect();
      }
    }
    const nodes = parseSentinelAddresses(deployment.nodes)!;
    const logger = recordingLogger();
    const edge = createRedisStore({ cluster: { nodes, username: 'plant-a', password: edgeUser.password, tls: false }, keyPrefix: 'mcptest', logger });
    const hub = createRedisStore({ cluster: { nodes, username: 'hub', password: hubUser.password, tls: false }, keyPrefix: 'mcptest', logger });
    const channel = (site: string, id: string): StoreKey => ({ namespace: 'edge', kind: site, id });
    try {
      await Promise.all([waitForState(edge, 'ready', 15_000), waitForState(hub, 'ready', 15_000)]);
      const heard: string[] = [];
      const stops = [edge.subscribe(channel('plant-a', 'calls'), (message) => heard.push(`edge ${message}`)), hub.subscribe(channel('plant-a', 'answers'), (message) => heard.push(`hub ${message}`))];
      const until = async (send: () => Promise<number>, expected: string) => {
        for (let attempt = 0; attempt < 100 && !heard.includes(expected); attempt += 1) {
          await send().catch(() => 0);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.ok(heard.includes(expected), `${expected} arrived: ${logger.lines.join(' | ')}`);
      };
      await until(() => hub.publish(channel('plant-a', 'calls'), 'call-1'), 'edge call-1');
      await until(() => edge.publish(channel('plant-a', 'answers'), 'answer-1'), 'hub answer-1');
      await assert.rejects(edge.publish(channel('plant-b', 'answers'), 'forged'), StorageUnavailableError, 'another site\'s channel is refused');
      await assert.rejects(edge.get(key('load', 'x')), StorageUnavailableError, 'no key for an edge');
      await hub.put(key('hub', 'x'), 'v', 60);
      assert.equal(await hub.take(key('hub', 'x')), 'v');
      assert.equal(await hub.increment(key('hub', 'n'), 60), 1);
      assert.equal(await hub.addToBoundedSet(key('hub', 's'), 'm', 60, 5), true);
      assert.equal(await hub.countSet(key('hub', 's')), 1);
      for (const stop of stops) stop();
    } finally {
      await Promise.all([edge.close(), hub.close()]);
    }
  });

  it('serves a mixed load while slots migrate: clear errors only, no hang, nothing lost, nothing taken twice', async () => {
    const channel = key('channel', 'migrating');
    const heard: string[] = [];
    const stopListening = stores[0]!.subscribe(channel, (message) => heard.push(message));
    const acknowledged = new Map<string, string>();
    const reasons = new Map<string, number>();
    let lastFailure = 0;
    let takenTwice = 0;
    let taken = 0;
    // Stopped in `finally` too: a failed assertion must not leave eight workers running forever.
    let load: Load | undefined;
    try {
      await heardAcross(channel, heard);
      load = startLoad({
        workers: 8,
        hangAfterMs: HANG_AFTER_MS,
        isClear: (error) => {
          if (!(error instanceof StorageUnavailableError)) return false;
          reasons.set(error.reason, (reasons.get(error.reason) ?? 0) + 1);
          lastFailure = Date.now();
          return true;
        },
        operation: async (worker, sequence) => {
          const [mine, other] = [stores[worker % 2]!, stores[(worker + 1) % 2]!];
          const id = `${worker}-${sequence}-${randomUUID()}`;
          await mine.put(key('load', id), id, 300);
          acknowledged.set(id, id);
          assert.equal(await other.get(key('load', id)), id);
          // A one-time code: both instances redeem it at once, exactly one may win.
          assert.equal(await mine.putIfAbsent(key('code', id), id, 300), true);
          const wins = (await Promise.all([mine.take(key('code', id)), other.take(key('code', id))])).filter((value) => value === id).length;
          if (wins > 1) takenTwice += 1;
          if (wins === 1) taken += 1;
          assert.equal(await other.compareAndSet(key('load', id), id, `${id}-2`, 300), true);
          acknowledged.set(id, `${id}-2`);
          await mine.increment(key('counter', String(worker)), 300);
          assert.equal(await other.addToBoundedSet(key('set', String(worker % 4)), id, 300, 100_000), true);
        },
      });
      await load.successes(100);
      const [a, b, c] = deployment.ports as [number, number, number];
      const before = await deployment.slotsOf(a);
      const firstMs = await deployment.reshard(a, b, SLOTS);
      const secondMs = await deployment.reshard(b, c, SLOTS);
      const finished = Date.now();
      await load.successes(100);
      const counts = await load.stop();
      assert.equal(await deployment.slotsOf(a), before - SLOTS, 'the slots moved');

      // The figures docs/redis-cluster.md quotes (they depend on the machine's timing).
      console.log(
        `# slot migration (2 × ${SLOTS} slots, ${firstMs} + ${secondMs} ms): ${counts.ok} operation rounds answered, ${counts.clearErrors} failed with StorageUnavailableError ` +
          `(${[...reasons].map(([reason, count]) => `${reason} ${count}`).join(', ')}; ${lastFailure ? `last ${lastFailure - finished} ms after the migration` : 'none'}), ` +
          `${counts.hangs} hung, ${acknowledged.size} acknowledged writes, ${taken} codes redeemed once, ${takenTwice} twice; ` +
          `refusals logged: ${logs.flatMap((log) => log.lines.filter((line) => line.includes('refused'))).join(' | ')}`,
      );
      assert.equal(counts.hangs, 0, 'no operation hung');
      assert.deepEqual(counts.otherErrors, [], 'every failure was a StorageUnavailableError');
      // MOVED and ASK are followed, never passed on: a refusal would be a server_error.
      assert.equal(reasons.get('server_error') ?? 0, 0, 'no redirection surfaced as an error');
      assert.ok(counts.recovered, 'every worker was served at the end');
      assert.equal(takenTwice, 0, 'no single-use value was taken twice');
      let lost = 0;
      for (const [id, value] of acknowledged) if ((await stores[0]!.get(key('load', id))) !== value) lost += 1;
      assert.equal(lost, 0, `no acknowledged write was lost (${lost} of ${acknowledged.size})`);
      assert.ok(await heardAcross(channel, heard), 'the sharded subscription followed its slot');
      for (const [i, store] of stores.entries()) {
        assert.equal(store.primary?.switches, 0, `store ${i}: a migration is not a failover`);
        assert.equal(logs[i]!.lines.filter((line) => line.includes('failover')).length, 0);
      }
    } finally {
      await load?.stop();
      stopListening();
    }
  });
});
