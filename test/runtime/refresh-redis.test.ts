import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { parseRefreshLifetimes } from '../../lib/auth/refresh/lifetimes.js';
import type { RefreshAuditEvent } from '../../lib/auth/refresh/refresh-audit.js';
import { parseRefreshKey } from '../../lib/auth/refresh/refresh-key.js';
import { createRefreshService, type RefreshService, type RefreshServiceOptions, type SessionGrant } from '../../lib/auth/refresh/refresh-service.js';
import { sha256 } from '../../lib/auth/secrets.js';
import { namespaceOf, parseProviderSettings, type ProviderSettings } from '../../lib/auth/upstream/provider-settings.js';
import { createUpstreamClient } from '../../lib/auth/upstream/upstream-client.js';
import { createUpstreamRefresher, type UpstreamRefresher } from '../../lib/auth/upstream/upstream-refresh.js';
import { silentLogger } from '../../lib/core/logger.js';
import { createRedisStore, type RedisStore } from '../../lib/storage/redis-store.js';
import { waitForState } from '../../lib/storage/wait-for-state.js';
import { refusal } from '../support/oauth-failure.js';
import { redisServerOnPath, startRedis, type RedisServer } from '../support/redis-server.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';

/**
 * The refresh service over a real Redis, with the real upstream refresher against a real OpenID
 * provider: rotation, grace and reuse with provider calls counted on the provider itself, two
 * service instances sharing one Redis, and Redis going away between a claim and its commit.
 */

const REDIRECT_URI = 'http://127.0.0.1:9/oauth/team-login/callback';
const SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
const KEY = parseRefreshKey(randomBytes(32).toString('hex'));
const STATE_TIMEOUT_MS = 15_000;
const CLAIM_DEADLINE_MS = 3_000;
const GRACE_MS = 30_000;
const NEEDS_OWN_SERVER = !redisServerOnPath() && 'needs redis-server on PATH (the outage test stops and restarts it)';

interface Bench {
  readonly redis: RedisServer;
  readonly idp: TestIdp;
  readonly settings: ProviderSettings;
  readonly refresher: UpstreamRefresher;
  readonly stores: RedisStore[];
  signIn(username: string): Promise<{ grant: SessionGrant; upstreamRefreshToken: string }>;
  openStore(): Promise<RedisStore>;
  service(store: RedisStore, overrides?: Partial<RefreshServiceOptions>): RefreshService;
  readonly events: RefreshAuditEvent[];
  readonly namespace: string;
}

async function startBench(kind: 'oidc' | 'entra'): Promise<Bench> {
  const redis = await startRedis();
  const tenantId = randomUUID();
  const clientId = kind === 'entra' ? randomUUID() : 'bridge';
  const idp = await startTestIdp({
    clients: [{ client_id: clientId, client_secret: SECRET, redirect_uris: [REDIRECT_URI] }],
    refreshTokens: true,
    ...(kind === 'entra' ? { entra: { tenantId } } : {}),
  });
  const settings = kind === 'entra'
    ? parseProviderSettings({ kind: 'entra', tenantId, clientId, clientSecret: SECRET, authorityHost: idp.origin }, { allowLoopbackAuthority: true })
    : parseProviderSettings({ kind: 'oidc', issuer: idp.issuer, clientId, clientSecret: SECRET });
  const signInClient = createUpstreamClient({ ...settings, scopes: [...settings.scopes, 'offline_access'] }, { redirectUri: REDIRECT_URI });
  const refresher = createUpstreamRefresher(settings, { timeoutMs: 2_000 });
  const stores: RedisStore[] = [];
  const events: RefreshAuditEvent[] = [];
  const namespace = namespaceOf(settings, 'team-login');
  return {
    redis,
    idp,
    settings,
    refresher,
    stores,
    events,
    namespace,
    async signIn(username) {
      const request = await signInClient.beginSignIn();
      const identity = await signInClient.completeSignIn(new URL(await idp.signIn(request.url, username)), request, { includeRefreshToken: true });
      assert.ok(identity.upstreamRefreshToken);
      return {
        upstreamRefreshToken: identity.upstreamRefreshToken,
        grant: {
          clientId: 'https://client.example/oauth/client.json',
          client: 'client.example',
          resource: 'https://mcp.example/tools',
          scope: ['openid', 'offline_access'],
          identity: { subject: identity.subject, ...(identity.email ? { email: identity.email } : {}), groups: identity.groups },
        },
      };
    },
    async openStore() {
      const store = createRedisStore({ url: redis.url, logger: silentLogger });
      stores.push(store);
      await waitForState(store, 'ready', STATE_TIMEOUT_MS);
      return store;
    },
    service(store, overrides = {}) {
      return createRefreshService({
        store,
        namespace,
        key: KEY,
        lifetimes: parseRefreshLifetimes(),
        upstream: refresher,
        audit: (event) => void events.push(event),
        logger: silentLogger,
        claimDeadlineMs: CLAIM_DEADLINE_MS,
        pollTimeoutMs: 300,
        ...overrides,
      });
    },
  };
}

/** A clock that stands still until the test moves it (refresh timings are compared with it). */
function testClock() {
  let at = Date.now();
  return { now: () => at, advance: (ms: number) => void (at += ms) };
}

async function stopBench(bench: Bench | undefined): Promise<void> {
  if (!bench) return;
  await Promise.all(bench.stores.map((store) => store.close()));
  await bench.idp.stop();
  await bench.redis.stop();
}

/**
 * Every key with its absolute expiry, as a persistent Redis (RDB/AOF) would bring it back after a
 * restart: the spawned test server keeps nothing, so the test replays this snapshot into it.
 */
async function snapshot(url: string): Promise<{ key: string; expiresAt: number; dump: Buffer }[]> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const entries: { key: string; expiresAt: number; dump: Buffer }[] = [];
    for (const key of await client.keys('*')) {
      const ttl = await client.pttl(key);
      const dump = await client.dumpBuffer(key);
      if (dump) entries.push({ key, expiresAt: ttl > 0 ? Date.now() + ttl : 0, dump });
    }
    return entries;
  } finally {
    client.disconnect();
  }
}

async function replay(url: string, entries: { key: string; expiresAt: number; dump: Buffer }[]): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for (const entry of entries) {
      if (entry.expiresAt === 0) await client.restore(entry.key, 0, entry.dump, 'REPLACE');
      else await client.call('RESTORE', entry.key, String(entry.expiresAt), entry.dump, 'ABSTTL', 'REPLACE');
    }
  } finally {
    client.disconnect();
  }
}

describe('refresh service over Redis with a real OpenID provider', () => {
  let bench: Bench;
  let store: RedisStore;

  before(async () => {
    bench = await startBench('oidc');
    store = await bench.openStore();
  });
  after(() => stopBench(bench));

  it('rotates, answers an identical retry within grace without calling the provider, and revokes', async () => {
    const { idp } = bench;
    const service = bench.service(store);
    const { grant, upstreamRefreshToken } = await bench.signIn('alice');
    const started = await service.startSession(grant, upstreamRefreshToken);
    assert.ok(started.refreshToken);
    const stored = await store.get({ namespace: bench.namespace, kind: 'refresh-token', id: sha256(started.refreshToken) });
    assert.ok(stored, 'the token index lives in Redis under its hash');

    const calls = idp.requestCount('token');
    const first = await service.refresh({ refreshToken: started.refreshToken, clientId: grant.clientId });
    assert.equal(idp.requestCount('token'), calls + 1, 'the rotation asked the provider');
    const again = await service.refresh({ refreshToken: started.refreshToken, clientId: grant.clientId, resource: grant.resource });
    assert.equal(again.refreshToken, first.refreshToken);
    assert.equal(again.accessToken, first.accessToken);
    assert.ok(again.expiresIn <= first.expiresIn);
    assert.equal(idp.requestCount('token'), calls + 1, 'the grace retry did not');

    const second = await service.refresh({ refreshToken: first.refreshToken, clientId: grant.clientId });
    assert.equal(idp.requestCount('token'), calls + 2);
    await service.revokeRefreshToken(second.refreshToken, grant.clientId);
    await refusal(service.refresh({ refreshToken: second.refreshToken, clientId: grant.clientId }), 'invalid_grant');
    assert.equal(idp.requestCount('token'), calls + 2);
  });

  it('revokes the session on reuse after grace, so the newest token fails too', async () => {
    // The service's clock is the test's: the grace window ends when the test moves it, not after a wait.
    const clock = testClock();
    const service = bench.service(store, { graceMs: GRACE_MS, now: clock.now });
    const { grant, upstreamRefreshToken } = await bench.signIn('alice');
    const started = await service.startSession(grant, upstreamRefreshToken);
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: grant.clientId });
    clock.advance(GRACE_MS - 1);
    const retry = await service.refresh({ refreshToken: started.refreshToken!, clientId: grant.clientId });
    assert.equal(retry.refreshToken, first.refreshToken, 'the last moment of grace still answers the retry');
    assert.equal(bench.events.at(-1)?.outcome, 'grace_reuse');
    clock.advance(1);
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: grant.clientId }), 'invalid_grant');
    assert.deepEqual([bench.events.at(-1)?.outcome, bench.events.at(-1)?.reason], ['replay', 'reuse_outside_grace']);
    await refusal(service.refresh({ refreshToken: first.refreshToken, clientId: grant.clientId }), 'invalid_grant');
  });

  it('lets a second instance on the same Redis refresh what the first issued, one provider call for two racing requests', async () => {
    const { idp } = bench;
    const one = bench.service(store);
    const two = bench.service(await bench.openStore());
    const { grant, upstreamRefreshToken } = await bench.signIn('alice');
    const started = await one.startSession(grant, upstreamRefreshToken);
    const calls = idp.requestCount('token');
    const request = { refreshToken: started.refreshToken!, clientId: grant.clientId };
    const [a, b] = await Promise.all([one.refresh(request), two.refresh(request)]);
    // One rotated, the other got its response through the grace cache (expires_in counted down).
    assert.deepEqual({ ...a, expiresIn: 0 }, { ...b, expiresIn: 0 });
    assert.ok(Math.abs(a.expiresIn - b.expiresIn) <= 1);
    assert.equal(idp.requestCount('token'), calls + 1);
    const next = await two.refresh({ refreshToken: a.refreshToken, clientId: grant.clientId });
    assert.ok(next.accessToken);
  });

  it('survives Redis going away between claim and commit: 503, then the claim is given back and the retry rotates at once', { skip: NEEDS_OWN_SERVER }, async () => {
    const { idp, redis } = bench;
    // The clock stands still: only the worker giving its claim back can free it, never the deadline.
    const clock = testClock();
    let sabotage = false;
    let saved: Awaited<ReturnType<typeof snapshot>> = [];
    const upstream: UpstreamRefresher = {
      async refresh(token, subject) {
        if (sabotage) {
          sabotage = false;
          // The claim is in Redis now; take Redis down (with its data saved, as a persistent one keeps it).
          saved = await snapshot(redis.url);
          await redis.stop();
        }
        return bench.refresher.refresh(token, subject);
      },
    };
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    const service = bench.service(store, { upstream, now: clock.now, logger });
    const { grant, upstreamRefreshToken } = await bench.signIn('alice');
    const started = await service.startSession(grant, upstreamRefreshToken);
    const request = { refreshToken: started.refreshToken!, clientId: grant.clientId };
    const calls = idp.requestCount('token');

    sabotage = true;
    await refusal(service.refresh(request), 'temporarily_unavailable', 503);
    assert.deepEqual(bench.events.at(-1), { event: 'oauth.refresh', outcome: 'transient', reason: 'storage_unavailable', subject: 'alice', client: 'client.example', session: started.session });
    assert.ok(saved.some((entry) => entry.key.includes(':refresh-session:')), 'the claimed session was in Redis');
    assert.equal(idp.requestCount('token'), calls + 1);

    await redis.restart();
    await replay(redis.url, saved);
    await waitForState(store, 'ready', STATE_TIMEOUT_MS);

    // The interrupted worker gives its claim back as soon as Redis answers again: the retry rotates at
    // once, long before the claim deadline (the clock stands still), and takes nothing over.
    const recovered = await service.refresh(request);
    const takeovers = warnings.filter((line) => /took over a rotation whose worker did not finish/.test(line));
    assert.deepEqual(takeovers, [], 'the claim was given back, not taken over');
    assert.ok(recovered.refreshToken && recovered.refreshToken !== started.refreshToken);
    assert.equal(idp.requestCount('token'), calls + 2, 'the retry asked the provider itself (the first answer was never stored)');
    const next = await service.refresh({ refreshToken: recovered.refreshToken, clientId: grant.clientId });
    assert.ok(next.accessToken);
  });
});

describe('refresh service over Redis with a Microsoft-shaped provider', () => {
  let bench: Bench;
  let store: RedisStore;

  before(async () => {
    bench = await startBench('entra');
    store = await bench.openStore();
  });
  after(() => stopBench(bench));

  it('refreshes with current roles, and ends the session once the last role is removed upstream', async () => {
    const { idp } = bench;
    const service = bench.service(store);
    const { grant, upstreamRefreshToken } = await bench.signIn('alice');
    const started = await service.startSession(grant, upstreamRefreshToken);
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: grant.clientId });
    idp.setGroups('alice', []);
    try {
      await refusal(service.refresh({ refreshToken: first.refreshToken, clientId: grant.clientId }), 'invalid_grant');
      const revoked = bench.events.at(-1);
      assert.equal(revoked?.outcome, 'revoked');
      assert.equal(revoked?.reason, 'upstream_missing_claim');
    } finally {
      idp.setGroups('alice', ['mcp-users', 'admins']);
    }
    // Giving the role back does not revive the session: the user signs in again.
    await refusal(service.refresh({ refreshToken: first.refreshToken, clientId: grant.clientId }), 'invalid_grant');
  });
});
