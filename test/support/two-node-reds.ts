import { after, before } from 'node:test';
import { startNodeRed, type FlowNode, type NodeRedProcess } from './node-red-process.js';
import { freePort } from './ports.js';
import { startRedis, type RedisServer } from './redis-server.js';
import { waitForEndpoint } from './mcp-http.js';

/** Two Node-RED processes serving the same flows on one real redis-server (filled in by `before`). */
export interface TwoNodeReds {
  redis: RedisServer;
  first: NodeRedProcess;
  second: NodeRedProcess;
  firstUrl: string;
  secondUrl: string;
}

/**
 * Registers the current suite's before/after hooks: a redis-server, then two Node-REDs started from
 * `flows(port)` with MCP_TEST_REDIS_URL pointing at it and MCP_TEST_INSTANCE set to each one's name,
 * each serving an endpoint at `path`. What a scale-out test needs before its first call. `env` is
 * given to both (a key they must share, such as MCP_REQUEST_STATE_KEY).
 */
export function twoNodeRedsOnRedis(flows: (port: number) => FlowNode[], path: string, names: readonly [string, string] = ['A', 'B'], env: Record<string, string> = {}): TwoNodeReds {
  const pair = {} as TwoNodeReds;
  before(async () => {
    pair.redis = await startRedis();
    const [port1, port2] = [await freePort(), await freePort()];
    const options = (name: string) => ({ env: { ...env, MCP_TEST_REDIS_URL: pair.redis.url, MCP_TEST_INSTANCE: name } });
    [pair.first, pair.second] = await Promise.all([startNodeRed(flows(port1), options(names[0])), startNodeRed(flows(port2), options(names[1]))]);
    pair.firstUrl = `http://127.0.0.1:${port1}${path}`;
    pair.secondUrl = `http://127.0.0.1:${port2}${path}`;
    await Promise.all([waitForEndpoint(pair.firstUrl), waitForEndpoint(pair.secondUrl)]);
  });
  after(async () => {
    await pair.first?.stop();
    await pair.second?.stop();
    await pair.redis?.stop();
  });
  return pair;
}
