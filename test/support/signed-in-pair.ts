import assert from 'node:assert/strict';
import { waitForEndpoint } from './mcp-http.js';
import { startNodeRed, type FlowNode, type NodeRedProcess } from './node-red-process.js';
import { postToken, signedInClient, TestOAuthProvider } from './oauth-client.js';
import { freePort } from './ports.js';
import { startTestIdp, type TestIdp } from './test-idp.js';

/** A failure that is not the clear, retryable kind a load test accepts. */
export class Unclear extends Error {}

/**
 * Two Node-RED instances behind one Base URL (instance one's origin) sharing storage, and one user
 * (alice) signed in through the first, with a refresh token: what the failover and migration tests
 * put load on. `refresh` rotates the pair as a client does (keeps the old one after a 503).
 */
export interface SignedInPair {
  readonly idp: TestIdp;
  readonly one: NodeRedProcess;
  readonly two: NodeRedProcess;
  readonly origins: [string, string];
  accessToken: string;
  refreshToken: string;
  refresh(origin: string): Promise<void>;
  /**
   * Nothing ran twice: each marker the `patterns` (one capture group: the marker) find in the two
   * instances' output after `since` reached a flow at most once, and each `answered` one exactly once.
   */
  assertEachRanOnce(patterns: readonly RegExp[], answered: ReadonlySet<string>, since?: readonly [number, number]): void;
  stop(): Promise<void>;
}

export async function startSignedInPair(options: {
  clientId: string;
  secret: string;
  refreshKey: string;
  env: Record<string, string>;
  flows: (port: number, baseUrl: string, issuer: string, instance: 'one' | 'two') => FlowNode[];
}): Promise<SignedInPair> {
  const ports = [await freePort(), await freePort()] as const;
  const origins: [string, string] = [`http://127.0.0.1:${ports[0]}`, `http://127.0.0.1:${ports[1]}`];
  const idp = await startTestIdp({ clients: [{ client_id: 'bridge', client_secret: options.secret, redirect_uris: [`${origins[0]}/oauth/team/callback`] }], refreshTokens: true });
  const env = { MCP_TEST_SECRET: options.secret, ...options.env };
  const credentials = { auth: { oidcRefreshKey: options.refreshKey } };
  const [one, two] = await Promise.all([
    startNodeRed(options.flows(ports[0], origins[0], idp.issuer, 'one'), { env, credentials }),
    startNodeRed(options.flows(ports[1], origins[0], idp.issuer, 'two'), { env, credentials }),
  ]);
  await Promise.all(origins.map((origin) => waitForEndpoint(`${origin}/tools`)));
  const provider = new TestOAuthProvider(options.clientId, await freePort());
  await (await signedInClient(`${origins[0]}/tools`, provider, idp, 'alice')).close();
  const tokens = provider.tokens();
  assert.ok(tokens.refresh_token, 'a refresh token was issued');
  const pair: SignedInPair = {
    idp,
    one,
    two,
    origins,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    async refresh(origin) {
      const answer = await postToken(origin, 'team', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: pair.refreshToken, client_id: options.clientId }).toString());
      if (answer.status === 200) {
        pair.accessToken = answer.body.access_token;
        pair.refreshToken = answer.body.refresh_token;
        return;
      }
      if (answer.status === 503 && answer.headers.get('retry-after')) throw new Error(`retryable: refresh on ${origin} ${JSON.stringify(answer.body).slice(0, 120)}`);
      throw new Unclear(`refresh: ${answer.status} ${JSON.stringify(answer.body)}`);
    },
    assertEachRanOnce(patterns, answered, since = [0, 0]) {
      const reached = new Map<string, number>();
      for (const [i, process] of [one, two].entries()) {
        const output = process.output().slice(since[i]);
        for (const pattern of patterns) for (const match of output.matchAll(pattern)) reached.set(match[1]!, (reached.get(match[1]!) ?? 0) + 1);
      }
      assert.deepEqual([...reached].filter(([, count]) => count > 1), [], 'no call ran twice');
      assert.deepEqual([...answered].filter((marker) => reached.get(marker) !== 1), [], 'every answered call ran once');
    },
    async stop() {
      await Promise.all([one.stop(), two.stop()]);
      await idp.stop();
    },
  };
  return pair;
}
