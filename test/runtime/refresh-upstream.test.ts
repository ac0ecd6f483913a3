import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parseProviderSettings, type ProviderSettings } from '../../lib/auth/upstream/provider-settings.js';
import { createUpstreamClient } from '../../lib/auth/upstream/upstream-client.js';
import { createUpstreamRefresher, type UpstreamRefresher } from '../../lib/auth/upstream/upstream-refresh.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { startTestIdp, type TestIdp, type TestIdpOptions } from '../support/test-idp.js';
import { rejectsWith } from '../support/upstream-error.js';

/**
 * The upstream refresher against a real OpenID provider (oidc-provider on loopback) behind a
 * fault-injecting proxy of our own: the refresh_token grant, ID token verification over JWKS and
 * UserInfo happen for real; the proxy makes the provider answer 429, 503, hang, reset or refuse
 * the bridge's client, and each failure must land in the class the refresh service acts on.
 */

const REDIRECT_URI = 'http://127.0.0.1:9/oauth/team-login/callback';
const SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
const TIMEOUT_MS = 800;

interface Provider {
  readonly idp: TestIdp;
  readonly proxy: FaultProxy;
  readonly settings: ProviderSettings;
  /** Signs `username` in with offline_access and returns the provider's refresh token. */
  signIn(username: string): Promise<string>;
  stop(): Promise<void>;
}

/** The test IdP published on the proxy's port, so discovery, token, JWKS and UserInfo all pass the proxy. */
async function startProvider(kind: 'oidc' | 'entra', extra: Partial<TestIdpOptions> = {}): Promise<Provider> {
  const proxy = await startFaultProxy();
  const tenantId = randomUUID();
  const clientId = kind === 'entra' ? randomUUID() : 'bridge';
  const idp = await startTestIdp({
    clients: [{ client_id: clientId, client_secret: SECRET, redirect_uris: [REDIRECT_URI] }],
    publicPort: proxy.port,
    refreshTokens: true,
    ...(kind === 'entra' ? { entra: { tenantId } } : {}),
    ...extra,
  });
  proxy.setTarget(`http://127.0.0.1:${idp.port}`);
  const settings = kind === 'entra'
    ? parseProviderSettings({ kind: 'entra', tenantId, clientId, clientSecret: SECRET, authorityHost: idp.origin }, { allowLoopbackAuthority: true })
    : parseProviderSettings({ kind: 'oidc', issuer: idp.issuer, clientId, clientSecret: SECRET });
  // The bridge asks for offline_access upstream when refresh is configured.
  const signInClient = createUpstreamClient({ ...settings, scopes: [...settings.scopes, 'offline_access'] }, { redirectUri: REDIRECT_URI });
  return {
    idp,
    proxy,
    settings,
    async signIn(username) {
      const request = await signInClient.beginSignIn();
      const callback = new URL(await idp.signIn(request.url, username));
      const identity = await signInClient.completeSignIn(callback, request, { includeRefreshToken: true });
      assert.ok(identity.upstreamRefreshToken, 'the provider issued a refresh token for offline_access');
      return identity.upstreamRefreshToken;
    },
    async stop() {
      await idp.stop();
      await proxy.stop();
    },
  };
}

describe('upstream refresh, generic OIDC provider behind a fault proxy', () => {
  let provider: Provider;
  let refresher: UpstreamRefresher;

  before(async () => {
    provider = await startProvider('oidc');
    refresher = createUpstreamRefresher(provider.settings, { timeoutMs: TIMEOUT_MS });
  });
  after(() => provider.stop());

  it('refreshes with one token request, verifies the ID token over JWKS and reads current groups from UserInfo', async () => {
    const { idp } = provider;
    const token = await provider.signIn('alice');
    const tokenCalls = idp.requestCount('token');
    const userInfoCalls = idp.requestCount('userinfo');
    const keySetCalls = idp.requestCount('jwks');
    const result = await refresher.refresh(token, 'alice');
    assert.deepEqual(result.identity, { subject: 'alice', email: 'alice@example.test', groups: ['mcp-users', 'admins'] });
    assert.equal(idp.requestCount('token'), tokenCalls + 1);
    assert.equal(idp.requestCount('userinfo'), userInfoCalls + 1);
    // The refresher holds its own keys, so checking the refreshed ID token's signature fetches them.
    assert.ok(idp.requestCount('jwks') > keySetCalls, 'the refreshed ID token signature was checked against the key set');
    assert.equal(JSON.stringify(result.identity).includes(token), false);

    idp.setGroups('alice', ['mcp-users']);
    try {
      const again = await refresher.refresh(result.upstreamRefreshToken ?? token, 'alice');
      assert.deepEqual(again.identity.groups, ['mcp-users'], 'no cached groups: what UserInfo says now');
    } finally {
      idp.setGroups('alice', ['mcp-users', 'admins']);
    }
  });

  it('classifies 429 with Retry-After as unavailable, passes the validated delay on, and leaves the credential usable', async () => {
    const token = await provider.signIn('alice');
    const before = provider.idp.requestCount('token');
    provider.proxy.inject('/token', { kind: 'status', status: 429, headers: { 'retry-after': '7' }, body: { error: 'slow_down' } });
    const error = await rejectsWith(refresher.refresh(token, 'alice'), 'unavailable');
    assert.equal(error.retryAfterSeconds, 7);
    assert.equal(provider.idp.requestCount('token'), before, 'the provider never saw it');
    await refresher.refresh(token, 'alice');
  });

  it('classifies 503 as unavailable, with an HTTP-date Retry-After turned into seconds and nonsense ignored', async () => {
    const token = await provider.signIn('alice');
    const at = new Date(Date.now() + 30_000).toUTCString();
    provider.proxy.inject('/token', { kind: 'status', status: 503, headers: { 'retry-after': at } });
    const dated = await rejectsWith(refresher.refresh(token, 'alice'), 'unavailable');
    assert.ok(dated.retryAfterSeconds !== undefined && dated.retryAfterSeconds > 20 && dated.retryAfterSeconds <= 30);
    provider.proxy.inject('/token', { kind: 'status', status: 503, headers: { 'retry-after': 'soon' } });
    assert.equal((await rejectsWith(refresher.refresh(token, 'alice'), 'unavailable')).retryAfterSeconds, undefined);
  });

  // The test's own limit only stops a refresher without a timeout from hanging the run.
  it('classifies a hanging provider as unavailable once the timeout passes', { timeout: 30_000 }, async () => {
    const token = await provider.signIn('alice');
    const before = provider.idp.requestCount('token');
    const hits = provider.proxy.hits('/token');
    provider.proxy.inject('/token', { kind: 'hang' });
    const error = await rejectsWith(refresher.refresh(token, 'alice'), 'unavailable');
    // It was the refresher's own time limit: the request reached the provider's address, got no
    // answer (the proxy never gives one), and the refresher then closed the connection itself.
    assert.equal(error.message, `identity provider did not answer within ${TIMEOUT_MS} ms`);
    assert.equal(provider.proxy.hits('/token'), hits + 1);
    await provider.proxy.hungUpOn('/token');
    assert.equal(provider.idp.requestCount('token'), before, 'the provider itself never saw it');
    await refresher.refresh(token, 'alice');
  });

  it('classifies a dropped connection as unavailable', async () => {
    const token = await provider.signIn('alice');
    provider.proxy.inject('/token', { kind: 'reset' });
    await rejectsWith(refresher.refresh(token, 'alice'), 'unavailable');
  });

  it('classifies invalid_client and unauthorized_client as provider_config', async () => {
    const token = await provider.signIn('alice');
    provider.proxy.inject('/token', { kind: 'status', status: 401, body: { error: 'invalid_client', error_description: 'client secret expired' } });
    await rejectsWith(refresher.refresh(token, 'alice'), 'provider_config');
    provider.proxy.inject('/token', { kind: 'status', status: 400, body: { error: 'unauthorized_client' } });
    await rejectsWith(refresher.refresh(token, 'alice'), 'provider_config');
  });

  it('classifies the real provider refusing a wrong client secret as provider_config', async () => {
    const token = await provider.signIn('alice');
    const wrong = createUpstreamRefresher({ ...provider.settings, clientSecret: 'wrong-secret' }, { timeoutMs: TIMEOUT_MS });
    const error = await rejectsWith(wrong.refresh(token, 'alice'), 'provider_config');
    assert.ok(!error.message.includes('wrong-secret'));
  });

  it('classifies the real provider refusing the refresh token as a definitive refusal', async () => {
    const error = await rejectsWith(refresher.refresh('not-a-refresh-token-the-provider-issued', 'alice'), 'provider_error');
    assert.equal(error.providerError, 'invalid_grant');
  });

  it('refuses a refresh that confirms another subject than the session\'s', async () => {
    const token = await provider.signIn('bob');
    await rejectsWith(refresher.refresh(token, 'alice'), 'invalid_token');
  });

  it('classifies an unavailable key set and an unavailable discovery document as unavailable', async () => {
    const token = await provider.signIn('alice');
    const fresh = createUpstreamRefresher(provider.settings, { timeoutMs: TIMEOUT_MS });
    provider.proxy.inject('/.well-known/openid-configuration', { kind: 'status', status: 502 });
    await rejectsWith(fresh.refresh(token, 'alice'), 'unavailable');
    provider.proxy.inject('/jwks', { kind: 'status', status: 404, body: 'not here' });
    const keySet = await rejectsWith(fresh.refresh(token, 'alice'), 'unavailable');
    assert.match(keySet.message, /key set answered HTTP 404/);
    // Neither outage consumed anything: the same credential works once the provider is back.
    const result = await fresh.refresh(token, 'alice');
    assert.equal(result.identity.subject, 'alice');
  });
});

describe('upstream refresh, provider that rotates its refresh tokens', () => {
  let provider: Provider;
  let refresher: UpstreamRefresher;

  before(async () => {
    provider = await startProvider('oidc', { refreshTokens: { rotate: true } });
    refresher = createUpstreamRefresher(provider.settings, { timeoutMs: TIMEOUT_MS });
  });
  after(() => provider.stop());

  it('hands back the rotated credential; the provider refuses the consumed one definitively', async () => {
    const token = await provider.signIn('alice');
    const first = await refresher.refresh(token, 'alice');
    assert.ok(first.upstreamRefreshToken && first.upstreamRefreshToken !== token);
    const second = await refresher.refresh(first.upstreamRefreshToken, 'alice');
    assert.ok(second.upstreamRefreshToken && second.upstreamRefreshToken !== first.upstreamRefreshToken);
    const error = await rejectsWith(refresher.refresh(token, 'alice'), 'provider_error');
    assert.equal(error.providerError, 'invalid_grant');
  });
});

describe('upstream refresh, Microsoft-shaped provider (roles in a fresh ID token)', () => {
  let provider: Provider;
  let refresher: UpstreamRefresher;

  before(async () => {
    provider = await startProvider('entra');
    refresher = createUpstreamRefresher(provider.settings, { timeoutMs: TIMEOUT_MS });
  });
  after(() => provider.stop());

  it('confirms tenant, subject and current roles from the refreshed ID token, without UserInfo', async () => {
    const { idp } = provider;
    const token = await provider.signIn('alice');
    const userInfoCalls = idp.requestCount('userinfo');
    const tokenCalls = idp.requestCount('token');
    const result = await refresher.refresh(token, 'alice');
    assert.deepEqual(result.identity, { subject: 'alice', email: 'alice@example.test', groups: ['mcp-users', 'admins'] });
    assert.equal(idp.requestCount('userinfo'), userInfoCalls);
    assert.equal(idp.requestCount('token'), tokenCalls + 1);

    idp.setGroups('alice', ['mcp-admins']);
    try {
      const changed = await refresher.refresh(result.upstreamRefreshToken ?? token, 'alice');
      assert.deepEqual(changed.identity.groups, ['mcp-admins'], 'the roles assigned now, not at sign-in');
    } finally {
      idp.setGroups('alice', ['mcp-users', 'admins']);
    }
  });

  it('refuses definitively once the user\'s last app role was removed upstream', async () => {
    const { idp } = provider;
    const token = await provider.signIn('alice');
    idp.setGroups('alice', []);
    try {
      const before = idp.requestCount('token');
      const error = await rejectsWith(refresher.refresh(token, 'alice'), 'missing_claim');
      assert.equal(idp.requestCount('token'), before + 1, 'the provider was asked');
      assert.equal(error.code, 'upstream_missing_claim');
    } finally {
      idp.setGroups('alice', ['mcp-users', 'admins']);
    }
  });

  it('refuses an ID token that was not signed for this refresh', async () => {
    const token = await provider.signIn('alice');
    // A bridge clock ten minutes ahead sees the provider's fresh token as an old one.
    const ahead = createUpstreamRefresher(provider.settings, { timeoutMs: TIMEOUT_MS, now: () => Date.now() + 600_000 });
    const error = await rejectsWith(ahead.refresh(token, 'alice'), 'invalid_token');
    assert.match(error.message, /not freshly issued/);
  });

  it('classifies the provider\'s invalid_client as provider_config here too', async () => {
    const token = await provider.signIn('alice');
    provider.proxy.inject('/token', { kind: 'status', status: 401, body: { error: 'invalid_client' } });
    await rejectsWith(refresher.refresh(token, 'alice'), 'provider_config');
  });
});
