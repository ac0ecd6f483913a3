import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flowServer, runtime, storage, tab } from './flows.js';
import { connect, waitForEndpoint, withClient } from './mcp-http.js';
import { repoRoot, startNodeRed, type FlowNode, type NodeRedProcess } from './node-red-process.js';
import { freePort } from './ports.js';
import { startRedis, type RedisServer } from './redis-server.js';

/**
 * The Redis ACL users of docs/edge-relay.md for a test's key prefix: an edge's user may only
 * publish and subscribe on its own site's channels; the hub's user is read from the docs, so a
 * suite that runs on it proves the recipe there is enough.
 */
export function edgeAclUser(site: string, password: string, prefix: string): string {
  return `${site} on >${password} resetchannels &${prefix}:edge:${site}:* resetkeys -@all +publish +subscribe +unsubscribe`;
}

/** The hub user of docs/edge-relay.md with its keys and channels under `prefix`, and its password. */
export function hubAclUser(prefix: string): { readonly line: string; readonly password: string } {
  const page = readFileSync(join(repoRoot, 'docs', 'edge-relay.md'), 'utf8');
  const line = /^ACL SETUSER (hub on >\S+ .+)$/m.exec(page)?.[1];
  assert.ok(line, "docs/edge-relay.md gives the hub's ACL user");
  const forPrefix = line.replaceAll('mcp:', `${prefix}:`);
  return { line: forPrefix, password: /^hub on >(\S+)/.exec(forPrefix)![1]! };
}

/** The Redis users a one-site suite needs: default off, an admin (to watch), the docs' hub user and plant-a's. */
export interface EdgeRedis {
  readonly redis: RedisServer;
  /** Storage URLs for the hub's and the edge's MCP_TEST_REDIS_URL, and for a watching admin connection. */
  readonly hubUrl: string;
  readonly edgeUrl: string;
  readonly adminUrl: string;
}

export async function startEdgeRedis(prefix: string): Promise<EdgeRedis> {
  const hub = hubAclUser(prefix);
  const redis = await startRedis({ aclUsers: ['default off', `admin on >${ADMIN_PASSWORD} ~* &* +@all`, hub.line, edgeAclUser('plant-a', PLANT_A_PASSWORD, prefix)] });
  const at = `@127.0.0.1:${redis.port}`;
  return { redis, hubUrl: `redis://hub:${hub.password}${at}`, edgeUrl: `redis://plant-a:${PLANT_A_PASSWORD}${at}`, adminUrl: `redis://admin:${ADMIN_PASSWORD}${at}` };
}

const ADMIN_PASSWORD = 'admin-secret';
const PLANT_A_PASSWORD = 'plant-a-secret';

/** A hub Node-RED's flows: one Local endpoint at /hub serving the tools of site plant-a through Redis. */
export function plantAHubFlows(port: number): FlowNode[] {
  return [tab(), runtime('rt', port), storage('st', 'redis', 'MCP_TEST_REDIS_URL'), { ...flowServer('hub', { runtime: 'rt', path: '/hub', wires: [] }), storage: 'st', hubSites: 'plant-a' }];
}

/** Resolves once the hub at `url` lists `toolName` (an edge announces every 2 s); fails after 15 s. */
export async function untilHubLists(url: string, toolName: string): Promise<void> {
  await withClient(connect(url, 'legacy'), async (client) => {
    for (let attempt = 0; attempt < 150; attempt += 1) {
      if ((await client.listTools()).tools.some((listed) => listed.name === toolName)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`${url} never listed ${toolName}`);
  });
}

/** One hub Node-RED serving site plant-a (`/hub`) and one edge Node-RED of that site, on one Redis with the docs' users. */
export interface PlantA {
  readonly store: EdgeRedis;
  readonly hub: NodeRedProcess;
  readonly edge: NodeRedProcess;
  readonly hubUrl: string;
  /** Both Node-REDs, then Redis. */
  stop(): Promise<void>;
}

/** Starts the hub and an edge running `edgeFlows`; resolves once the hub lists the edge's `tool`. */
export async function startPlantA(edgeFlows: (port: number) => FlowNode[], tool: string, prefix = 'mcptest'): Promise<PlantA> {
  const store = await startEdgeRedis(prefix);
  const [hubPort, edgePort] = [await freePort(), await freePort()];
  const hubUrl = `http://127.0.0.1:${hubPort}/hub`;
  const [hub, edge] = await Promise.all([
    startNodeRed(plantAHubFlows(hubPort), { env: { MCP_TEST_REDIS_URL: store.hubUrl } }),
    startNodeRed(edgeFlows(edgePort), { env: { MCP_TEST_REDIS_URL: store.edgeUrl } }),
  ]);
  const stop = async () => {
    await Promise.all([hub.stop(), edge.stop()]);
    await store.redis.stop();
  };
  try {
    await waitForEndpoint(hubUrl);
    await untilHubLists(hubUrl, tool);
  } catch (error) {
    await stop();
    throw error;
  }
  return { store, hub, edge, hubUrl, stop };
}
