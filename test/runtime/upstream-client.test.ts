import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parseProviderSettings, type ProviderSettings } from '../../lib/auth/upstream/provider-settings.js';
import { createUpstreamClient, type UpstreamClient } from '../../lib/auth/upstream/upstream-client.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { startTestIdp, type TestIdp } from '../support/test-idp.js';
import { rejectsWith } from '../support/upstream-error.js';

/**
 * The upstream client against a real OpenID provider (oidc-provider on loopback): discovery,
 * PKCE, the code exchange, ID token verification over JWKS and UserInfo all happen for real.
 */

const REDIRECT_URI = 'http://127.0.0.1:9/oauth/team-login/callback';
const SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

/** Starts a sign-in, lets `username` log in at the IdP, and returns what the bridge would hold. */
async function signInAt(idp: TestIdp, client: UpstreamClient, username: string) {
  const request = await client.beginSignIn();
  const callback = new URL(await idp.signIn(request.url, username));
  return { request, callback };
}

describe('upstream client, generic OIDC provider', () => {
  let idp: TestIdp;
  let settings: ProviderSettings;
  let client: UpstreamClient;

  before(async () => {
    idp = await startTestIdp({ clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [REDIRECT_URI] }] });
    settings = parseProviderSettings({ kind: 'oidc', issuer: idp.issuer, clientId: 'bridge', clientSecret: SECRET });
    client = createUpstreamClient(settings, { redirectUri: REDIRECT_URI });
  });
  after(() => idp.stop());

  it('builds an authorization URL with S256 PKCE, state, nonce and the fixed scopes', async () => {
    const { url, state, nonce, codeVerifier } = await client.beginSignIn();
    const params = new URL(url).searchParams;
    assert.equal(params.get('response_type'), 'code');
    assert.equal(params.get('client_id'), 'bridge');
    assert.equal(params.get('redirect_uri'), REDIRECT_URI);
    assert.equal(params.get('scope'), 'openid profile email groups');
    assert.equal(params.get('code_challenge_method'), 'S256');
    assert.match(params.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(params.get('state'), state);
    assert.equal(params.get('nonce'), nonce);
    assert.match(codeVerifier, /^[A-Za-z0-9_-]{43,128}$/);
    assert.ok(!url.includes(codeVerifier), 'the verifier never leaves the bridge');
  });

  it('signs alice in: subject from the ID token, email and groups from UserInfo', async () => {
    const { request, callback } = await signInAt(idp, client, 'alice');
    assert.equal(callback.searchParams.get('state'), request.state);
    const tokenCalls = idp.requestCount('token');
    const userInfoCalls = idp.requestCount('userinfo');
    const identity = await client.completeSignIn(callback, request);
    assert.deepEqual(identity, { subject: 'alice', email: 'alice@example.test', name: 'Alice Example', groups: ['mcp-users', 'admins'] });
    assert.equal(idp.requestCount('token'), tokenCalls + 1);
    assert.equal(idp.requestCount('userinfo'), userInfoCalls + 1);
    assert.equal(JSON.stringify(identity).includes('token'), false, 'no provider token is handed back');
  });

  it('verifies the ID token signature against the provider\'s published key set', async () => {
    // A fresh client holds no keys yet, so a signature check must fetch them.
    const fresh = createUpstreamClient(settings, { redirectUri: REDIRECT_URI });
    const { request, callback } = await signInAt(idp, fresh, 'alice');
    const keySetCalls = idp.requestCount('jwks');
    await fresh.completeSignIn(callback, request);
    assert.ok(idp.requestCount('jwks') > keySetCalls, 'the key set was fetched to check the signature');
  });

  it('reads the groups current at sign-in', async () => {
    idp.setGroups('bob', ['mcp-users']);
    const { request, callback } = await signInAt(idp, client, 'bob');
    const identity = await client.completeSignIn(callback, request);
    assert.deepEqual(identity.groups, ['mcp-users']);
    idp.setGroups('bob', ['other']);
  });

  it('reads groups and email from configured claim names', async () => {
    const renamed = createUpstreamClient(
      parseProviderSettings({ kind: 'oidc', issuer: idp.issuer, clientId: 'bridge', clientSecret: SECRET, emailClaim: 'preferred_username', groupsClaim: 'no-such-claim' }),
      { redirectUri: REDIRECT_URI },
    );
    const { request, callback } = await signInAt(idp, renamed, 'alice');
    const identity = await renamed.completeSignIn(callback, request);
    assert.equal(identity.email, 'alice@example.test');
    assert.deepEqual(identity.groups, [], 'an absent groups claim means no groups');
  });

  it('refuses a callback whose state belongs to another sign-in, before calling the provider', async () => {
    const { request, callback } = await signInAt(idp, client, 'alice');
    const before = idp.requestCount('token');
    await rejectsWith(client.completeSignIn(callback, { ...request, state: 'another-sign-in' }), 'invalid_response');
    assert.equal(idp.requestCount('token'), before);
  });

  it('refuses an ID token minted for another nonce', async () => {
    const { request, callback } = await signInAt(idp, client, 'alice');
    await rejectsWith(client.completeSignIn(callback, { ...request, nonce: 'not-the-nonce' }), 'invalid_token');
  });

  it('refuses a code redeemed with another PKCE verifier', async () => {
    const { request, callback } = await signInAt(idp, client, 'alice');
    const other = await client.beginSignIn();
    await rejectsWith(client.completeSignIn(callback, { ...request, codeVerifier: other.codeVerifier }), 'invalid_response');
  });

  it('refuses a code used twice', async () => {
    const { request, callback } = await signInAt(idp, client, 'alice');
    await client.completeSignIn(callback, request);
    await rejectsWith(client.completeSignIn(callback, request), 'invalid_response');
  });

  it('refuses a callback naming another issuer (mix-up defence)', async () => {
    const { request, callback } = await signInAt(idp, client, 'alice');
    callback.searchParams.set('iss', 'https://evil.example');
    await rejectsWith(client.completeSignIn(callback, request), 'invalid_response');
  });

  it('turns the provider\'s error redirect into provider_error with the error code kept', async () => {
    const request = await client.beginSignIn();
    const callback = new URL(await idp.signIn(request.url, 'alice', { deny: true }));
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    const error = await rejectsWith(client.completeSignIn(callback, request), 'provider_error');
    assert.equal(error.providerError, 'access_denied');
    assert.equal(error.code, 'upstream_provider_error');
  });

  it('answers invalid client credentials as a configuration problem', async () => {
    const wrongSecret = createUpstreamClient(
      parseProviderSettings({ kind: 'oidc', issuer: idp.issuer, clientId: 'bridge', clientSecret: 'wrong-secret' }),
      { redirectUri: REDIRECT_URI },
    );
    const { request, callback } = await signInAt(idp, wrongSecret, 'alice');
    const error = await rejectsWith(wrongSecret.completeSignIn(callback, request), 'provider_config');
    assert.ok(!error.message.includes('wrong-secret'));
  });

  it('authenticates with client_secret_post when that is all the provider offers', async () => {
    const postOnly = await startTestIdp({
      clientAuthMethods: ['client_secret_post'],
      clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' }],
    });
    try {
      const postClient = createUpstreamClient(
        parseProviderSettings({ kind: 'oidc', issuer: postOnly.issuer, clientId: 'bridge', clientSecret: SECRET }),
        { redirectUri: REDIRECT_URI },
      );
      const { request, callback } = await signInAt(postOnly, postClient, 'alice');
      assert.equal((await postClient.completeSignIn(callback, request)).subject, 'alice');
    } finally {
      await postOnly.stop();
    }
  });

  it('hands back the provider refresh token only when asked', async () => {
    const offline = await startTestIdp({ clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [REDIRECT_URI] }], refreshTokens: true });
    try {
      const settings = parseProviderSettings({ kind: 'oidc', issuer: offline.issuer, clientId: 'bridge', clientSecret: SECRET });
      // The bridge asks for offline_access upstream when refresh is configured.
      const offlineClient = createUpstreamClient({ ...settings, scopes: [...settings.scopes, 'offline_access'] }, { redirectUri: REDIRECT_URI });
      for (const includeRefreshToken of [true, false]) {
        const { request, callback } = await signInAt(offline, offlineClient, 'alice');
        const identity = await offlineClient.completeSignIn(callback, request, { includeRefreshToken });
        assert.equal(identity.subject, 'alice');
        assert.equal(typeof identity.upstreamRefreshToken, includeRefreshToken ? 'string' : 'undefined', `includeRefreshToken: ${includeRefreshToken}`);
      }
    } finally {
      await offline.stop();
    }
  });
});

describe('upstream client, Microsoft-shaped provider', () => {
  const tenantId = randomUUID();
  const clientId = randomUUID();
  let idp: TestIdp;

  const entraClient = (tenant: string, authorityHost: string) => createUpstreamClient(
    parseProviderSettings({ kind: 'entra', tenantId: tenant, clientId, clientSecret: SECRET, authorityHost }, { allowLoopbackAuthority: true }),
    { redirectUri: REDIRECT_URI },
  );

  before(async () => {
    idp = await startTestIdp({ entra: { tenantId } });
    // Registered after start, the way later suites add the bridge they just started.
    await idp.addClient({ client_id: clientId, client_secret: SECRET, redirect_uris: [REDIRECT_URI] });
  });
  after(() => idp.stop());

  it('serves the tenant-specific v2.0 issuer the settings derive', () => {
    const settings = parseProviderSettings({ kind: 'entra', tenantId, clientId, clientSecret: SECRET, authorityHost: idp.origin }, { allowLoopbackAuthority: true });
    assert.equal(settings.issuer, idp.issuer);
  });

  it('takes roles from the ID token as groups, email from preferred_username, and no UserInfo', async () => {
    const client = entraClient(tenantId, idp.origin);
    const request = await client.beginSignIn();
    assert.equal(new URL(request.url).searchParams.get('scope'), 'openid profile email');
    const callback = new URL(await idp.signIn(request.url, 'alice'));
    const userInfoCalls = idp.requestCount('userinfo');
    const identity = await client.completeSignIn(callback, request);
    assert.deepEqual(identity, { subject: 'alice', email: 'alice@example.test', name: 'Alice Example', groups: ['mcp-users', 'admins'] });
    assert.equal(idp.requestCount('userinfo'), userInfoCalls);
  });

  it('refuses a user without any app role', async () => {
    idp.setGroups('bob', []);
    try {
      const client = entraClient(tenantId, idp.origin);
      const { request, callback } = await signInAt(idp, client, 'bob');
      await rejectsWith(client.completeSignIn(callback, request), 'missing_claim');
    } finally {
      idp.setGroups('bob', ['other']);
    }
  });

  it('refuses an ID token whose tid names another tenant', async () => {
    const otherTenant = await startTestIdp({
      entra: { tenantId, idTokenTenantId: randomUUID() },
      clients: [{ client_id: clientId, client_secret: SECRET, redirect_uris: [REDIRECT_URI] }],
    });
    try {
      const client = entraClient(tenantId, otherTenant.origin);
      const { request, callback } = await signInAt(otherTenant, client, 'alice');
      await rejectsWith(client.completeSignIn(callback, request), 'tenant_mismatch');
    } finally {
      await otherTenant.stop();
    }
  });

  it('treats a tenant the authority does not serve as a configuration problem', async () => {
    await rejectsWith(entraClient(randomUUID(), idp.origin).beginSignIn(), 'provider_config');
  });
});

describe('upstream client, provider going away', () => {
  it('reports unavailable when the provider stops, and discovers again once it is back', async () => {
    const idp = await startTestIdp({ clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [REDIRECT_URI] }] });
    const settings = parseProviderSettings({ kind: 'oidc', issuer: idp.issuer, clientId: 'bridge', clientSecret: SECRET });
    const client = createUpstreamClient(settings, { redirectUri: REDIRECT_URI });
    const { request, callback } = await signInAt(idp, client, 'alice');
    await idp.stop();
    // Discovery is cached: the code exchange itself finds nobody there.
    await rejectsWith(client.completeSignIn(callback, request), 'unavailable');

    // A client that never discovered: the failed discovery is not cached, so once the provider is
    // back (same issuer) the next sign-in discovers again and works.
    const fresh = createUpstreamClient(settings, { redirectUri: REDIRECT_URI });
    await rejectsWith(fresh.beginSignIn(), 'unavailable');
    const back = await startTestIdp({ port: idp.port, clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [REDIRECT_URI] }] });
    try {
      assert.equal(back.issuer, idp.issuer);
      const again = await signInAt(back, fresh, 'alice');
      const identity = await fresh.completeSignIn(again.callback, again.request);
      assert.equal(identity.subject, 'alice');
    } finally {
      await back.stop();
    }
  });

  /** The real test provider, published on a fault proxy's port so a test can make it misbehave. */
  async function providerBehindProxy(): Promise<{ proxy: FaultProxy; provider: TestIdp; client: (timeoutMs?: number) => UpstreamClient; stop(): Promise<void> }> {
    const proxy = await startFaultProxy();
    const provider = await startTestIdp({ clients: [{ client_id: 'bridge', client_secret: SECRET, redirect_uris: [REDIRECT_URI] }], publicPort: proxy.port });
    proxy.setTarget(`http://127.0.0.1:${provider.port}`);
    const settings = parseProviderSettings({ kind: 'oidc', issuer: provider.issuer, clientId: 'bridge', clientSecret: SECRET });
    return {
      proxy,
      provider,
      client: (timeoutMs) => createUpstreamClient(settings, { redirectUri: REDIRECT_URI, ...(timeoutMs ? { timeoutMs } : {}) }),
      stop: async () => {
        await provider.stop();
        await proxy.stop();
      },
    };
  }

  it('reports unavailable when the provider does not answer in time', async () => {
    const behind = await providerBehindProxy();
    try {
      behind.proxy.inject('/.well-known/openid-configuration', { kind: 'hang' });
      const error = await rejectsWith(behind.client(200).beginSignIn(), 'unavailable');
      assert.match(error.message, /within 200 ms/);
    } finally {
      await behind.stop();
    }
  });

  it('passes on a 503 with its Retry-After', async () => {
    const behind = await providerBehindProxy();
    try {
      behind.proxy.inject('/.well-known/openid-configuration', { kind: 'status', status: 503, headers: { 'retry-after': '7' } });
      const client = behind.client();
      const error = await rejectsWith(client.beginSignIn(), 'unavailable');
      assert.equal(error.retryAfterSeconds, 7);
      // The failed discovery is forgotten: the next sign-in discovers again and works.
      const { url } = await client.beginSignIn();
      assert.ok(url.startsWith(behind.provider.origin));
    } finally {
      await behind.stop();
    }
  });
});
