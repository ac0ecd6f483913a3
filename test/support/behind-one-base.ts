import { waitForEndpoint } from './mcp-http.js';
import { startNodeRed, type FlowNode, type NodeRedProcess, type StartOptions } from './node-red-process.js';
import { freePort } from './ports.js';
import { startRedis, type RedisServer } from './redis-server.js';
import { startTestIdp, type TestIdp } from './test-idp.js';

export type Instance = 'one' | 'two';

/**
 * Two Node-RED instances behind one Base URL (instance one's origin, as a load balancer would publish
 * it), sharing a real redis-server, signing users in at a test OpenID provider.
 */
export interface BehindOneBase {
  readonly idp: TestIdp;
  readonly redis: RedisServer;
  readonly first: NodeRedProcess;
  readonly second: NodeRedProcess;
  /** The public Base URL both serve under: instance one's origin. */
  readonly base: string;
  /** Instance two's own origin, where the load balancer would send the calls it gives to instance two. */
  readonly secondOrigin: string;
  /** Instance one's port, for a test that deploys its flows again. */
  readonly firstPort: number;
  /** Stops both instances, then the provider and Redis. */
  stop(): Promise<void>;
}

/**
 * Starts what a scale-out sign-in test stands on: the provider knowing the bridge client (redirected to
 * the Base URL's callback), Redis, and both instances from `flows`, each given the bridge secret in
 * `bridge.secretEnv` and Redis in MCP_TEST_REDIS_URL (plus what `start` adds), serving /tools.
 * Whatever started is stopped again when a later part fails to.
 */
export async function startBehindOneBase(options: {
  readonly bridge: { readonly id: string; readonly secret: string; readonly secretEnv: string };
  readonly refreshTokens?: boolean;
  readonly flows: (port: number, base: string, issuer: string, instance: Instance) => FlowNode[];
  readonly start?: (instance: Instance) => StartOptions;
}): Promise<BehindOneBase> {
  const ports = [await freePort(), await freePort()] as const;
  const base = `http://127.0.0.1:${ports[0]}`;
  const secondOrigin = `http://127.0.0.1:${ports[1]}`;
  const started: Array<{ stop(): Promise<void> }> = [];
  try {
    const idp = await startTestIdp({
      clients: [{ client_id: options.bridge.id, client_secret: options.bridge.secret, redirect_uris: [`${base}/oauth/team/callback`] }],
      refreshTokens: options.refreshTokens,
    });
    started.push(idp);
    const redis = await startRedis();
    started.push(redis);
    const env = { [options.bridge.secretEnv]: options.bridge.secret, MCP_TEST_REDIS_URL: redis.url };
    const startInstance = async (instance: Instance, port: number) => {
      const extra = options.start?.(instance) ?? {};
      const nodeRed = await startNodeRed(options.flows(port, base, idp.issuer, instance), { ...extra, env: { ...env, ...extra.env } });
      started.unshift(nodeRed);
      return nodeRed;
    };
    const [first, second] = await Promise.all([startInstance('one', ports[0]), startInstance('two', ports[1])]);
    await Promise.all([waitForEndpoint(`${base}/tools`), waitForEndpoint(`${secondOrigin}/tools`)]);
    return {
      idp,
      redis,
      first,
      second,
      base,
      secondOrigin,
      firstPort: ports[0],
      async stop() {
        await Promise.all([first.stop(), second.stop()]);
        await idp.stop();
        await redis.stop();
      },
    };
  } catch (error) {
    for (const part of started) await part.stop().catch(() => undefined);
    throw error;
  }
}
