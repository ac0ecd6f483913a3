import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccessGrant } from '../../lib/auth/sign-in-records.js';
import { accessLifetimeSeconds, issueAccessToken } from '../../lib/auth/refresh/access-tokens.js';
import { parseRefreshLifetimes } from '../../lib/auth/refresh/lifetimes.js';
import type { RefreshServiceOptions } from '../../lib/auth/refresh/refresh-service.js';
import { sha256 } from '../../lib/auth/secrets.js';
import { outcomes, refreshHarness, refusal, sessionGrant } from './refresh-fixtures.js';

/**
 * The refresh service over MemoryStore with a scripted provider and a fake clock: issuance,
 * rotation, the grace window, reuse detection, expiry, scope and client bindings, revocation.
 */

const KEY = Buffer.alloc(32, 7);
const NAMESPACE = 'ns-refresh-test';
const GRANT = sessionGrant(['openid', 'profile', 'groups', 'offline_access'], { subject: 'alice', email: 'alice@example.test', groups: ['mcp-users'] });

function harness(overrides: Partial<RefreshServiceOptions> = {}) {
  const base = refreshHarness({ namespace: NAMESPACE, key: KEY, overrides });
  const accessGrant = async (token: string): Promise<AccessGrant | undefined> => {
    const text = await base.memory.get({ namespace: NAMESPACE, kind: 'access', id: sha256(token) });
    return text === undefined ? undefined : (JSON.parse(text) as AccessGrant);
  };
  return { ...base, store: base.memory, accessGrant };
}

describe('refresh service: issuing and rotating', () => {
  it('starts a session with an access token, a separate opaque refresh token and a session label', async () => {
    const { service, accessGrant, now, upstream } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    assert.match(started.accessToken, /^[A-Za-z0-9_-]{43}$/);
    assert.match(started.refreshToken ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(started.accessToken, started.refreshToken);
    assert.equal(started.expiresIn, 900);
    assert.deepEqual(started.scope, GRANT.scope);
    assert.match(started.session, /^[0-9a-f]{12}$/);
    const grant = await accessGrant(started.accessToken);
    assert.deepEqual(grant, {
      clientId: GRANT.clientId,
      client: GRANT.client,
      resource: GRANT.resource,
      scope: GRANT.scope,
      identity: GRANT.identity,
      session: started.session,
      expiresAt: now() + 900_000,
    });
    assert.equal(await accessGrant(started.refreshToken!), undefined, 'a refresh token is no bearer token');
    assert.equal(upstream.calls.length, 0, 'sign-in already asked the provider');
  });

  it('issues no refresh token when the provider sent no refresh credential, and warns once', async () => {
    const { service, logs } = harness();
    const first = await service.startSession(GRANT, undefined);
    await service.startSession(GRANT, '');
    assert.equal(first.refreshToken, undefined);
    assert.equal(first.expiresIn, 900);
    assert.equal(logs.filter((line) => line.startsWith('warn:')).length, 1);
  });

  it('rotates: every refresh asks the provider, returns a new pair and retires the old refresh token', async () => {
    const { service, upstream, events, accessGrant } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    upstream.setGroups(['mcp-users', 'admins']);
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    assert.notEqual(first.refreshToken, started.refreshToken);
    assert.notEqual(first.accessToken, started.accessToken);
    assert.equal(first.expiresIn, 900);
    assert.deepEqual(first.scope, GRANT.scope);
    assert.deepEqual(upstream.calls, [{ token: 'upstream-0', subject: 'alice' }]);
    const grant = await accessGrant(first.accessToken);
    assert.deepEqual(grant?.identity.groups, ['mcp-users', 'admins'], 'groups as the provider says now');
    assert.equal(grant?.session, started.session, 'one session label across rotations');

    const second = await service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId, resource: GRANT.resource });
    const third = await service.refresh({ refreshToken: second.refreshToken, clientId: GRANT.clientId });
    assert.equal(new Set([started.refreshToken, first.refreshToken, second.refreshToken, third.refreshToken]).size, 4);
    // The provider's rotated credential is the one used next time.
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0', 'upstream-1', 'upstream-2']);
    assert.deepEqual(outcomes(events), ['success', 'success', 'success']);
    assert.deepEqual(events[0], { event: 'oauth.refresh', outcome: 'success', subject: 'alice', client: 'client.example', session: started.session });
  });

  it('keeps using the old provider credential when the provider does not rotate it', async () => {
    const { service, upstream } = harness();
    upstream.respond = async (_token, subject) => ({ identity: { subject, groups: ['mcp-users'] } });
    const started = await service.startSession(GRANT, 'upstream-0');
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    await service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId });
    assert.deepEqual(upstream.calls.map((call) => call.token), ['upstream-0', 'upstream-0']);
  });

  it('refuses an unknown refresh token without touching the provider', async () => {
    const { service, upstream, events } = harness();
    await refusal(service.refresh({ refreshToken: 'never-issued', clientId: GRANT.clientId }), 'invalid_grant');
    await refusal(service.refresh({ refreshToken: 'x'.repeat(5000), clientId: GRANT.clientId }), 'invalid_grant');
    await refusal(service.refresh({ refreshToken: '', clientId: GRANT.clientId }), 'invalid_request');
    await refusal(service.refresh({ refreshToken: 'abc', clientId: '' }), 'invalid_request');
    assert.equal(upstream.calls.length, 0);
    assert.deepEqual(outcomes(events), ['unknown', 'unknown']);
  });
});

describe('refresh service: grace and reuse', () => {
  it('answers an identical retry within grace with the same pair, expires_in counting down, without the provider', async () => {
    const { service, upstream, events, advance } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const request = { refreshToken: started.refreshToken!, clientId: GRANT.clientId };
    const first = await service.refresh(request);
    advance(10_000);
    const again = await service.refresh(request);
    assert.deepEqual(again, { ...first, expiresIn: 890 });
    advance(19_500);
    assert.equal((await service.refresh({ ...request, resource: GRANT.resource })).expiresIn, 870);
    assert.equal(upstream.calls.length, 1, 'the provider was asked once');
    assert.deepEqual(outcomes(events), ['success', 'grace_reuse', 'grace_reuse']);
    // The session is intact: the new token rotates as usual.
    await service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId });
    assert.equal(upstream.calls.length, 2);
  });

  it('revokes the session when a rotated token comes back after grace: the newest token dies too', async () => {
    const { service, upstream, events, advance, accessGrant } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    advance(30_000);
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'invalid_grant');
    await refusal(service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId }), 'invalid_grant');
    assert.equal(await accessGrant(first.accessToken), undefined, 'access tokens of the session are revoked with it');
    assert.equal(await accessGrant(started.accessToken), undefined);
    assert.equal(upstream.calls.length, 1);
    assert.deepEqual(outcomes(events), ['success', 'replay', 'unknown']);
    assert.equal(events[1]?.reason, 'reuse_outside_grace');
  });

  it('revokes on reuse of a token two rotations old, even within grace of the last rotation', async () => {
    const { service } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    const second = await service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId });
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'invalid_grant');
    await refusal(service.refresh({ refreshToken: second.refreshToken, clientId: GRANT.clientId }), 'invalid_grant');
  });

  it('does not hand a grace response to a retry with another scope: that is reuse', async () => {
    const { service, events } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId, scope: 'openid' }), 'invalid_grant');
    await refusal(service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId }), 'invalid_grant');
    assert.deepEqual(outcomes(events), ['success', 'replay', 'unknown']);
    assert.equal(events[1]?.reason, 'grace_request_differs');
  });
});

describe('refresh service: lifetimes', () => {
  it('caps access issuance to the absolute session and refuses after it, however often it was refreshed', async () => {
    const { service, advance, events } = harness({ lifetimes: parseRefreshLifetimes({ absoluteSeconds: 2000 }) });
    const started = await service.startSession(GRANT, 'upstream-0');
    advance(800_000);
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    assert.equal(first.expiresIn, 900);
    advance(800_000);
    const second = await service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId });
    assert.equal(second.expiresIn, 400, 'only 400 s of the session remain');
    advance(400_000);
    await refusal(service.refresh({ refreshToken: second.refreshToken, clientId: GRANT.clientId }), 'invalid_grant');
    assert.equal(events.at(-1)?.outcome, 'unknown');
  });

  it('ends a session left unused for the inactivity window; each refresh restarts only that window', async () => {
    const { service, advance } = harness({ lifetimes: parseRefreshLifetimes({ accessSeconds: 60, inactivitySeconds: 100 }) });
    const started = await service.startSession(GRANT, 'upstream-0');
    assert.equal(started.expiresIn, 60);
    advance(90_000);
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    advance(90_000);
    const second = await service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId });
    advance(100_000);
    await refusal(service.refresh({ refreshToken: second.refreshToken, clientId: GRANT.clientId }), 'invalid_grant');
  });

  it('caps access issuance to the inactivity window when that is shorter than the access lifetime', async () => {
    const { service } = harness({ lifetimes: parseRefreshLifetimes({ accessSeconds: 900, inactivitySeconds: 300 }) });
    const started = await service.startSession(GRANT, 'upstream-0');
    assert.equal(started.expiresIn, 300);
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    assert.equal(first.expiresIn, 300);
  });
});

describe('refresh service: scope and bindings', () => {
  it('narrows scope on request, and the next refresh without scope gets the granted scope back', async () => {
    const { service, accessGrant } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const narrow = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId, scope: 'groups  openid' });
    assert.deepEqual(narrow.scope, ['openid', 'groups']);
    assert.deepEqual((await accessGrant(narrow.accessToken))?.scope, ['openid', 'groups']);
    const full = await service.refresh({ refreshToken: narrow.refreshToken, clientId: GRANT.clientId });
    assert.deepEqual(full.scope, GRANT.scope);
  });

  it('refuses a wider scope with invalid_scope and keeps the session', async () => {
    const { service, upstream } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId, scope: 'openid admin' }), 'invalid_scope');
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId, scope: 'openid "quoted"' }), 'invalid_scope');
    assert.equal(upstream.calls.length, 0);
    await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
  });

  it('revokes the session when another client presents the token', async () => {
    const { service, events } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: 'https://evil.example/client.json' }), 'invalid_grant');
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'invalid_grant');
    assert.deepEqual(events[0], { event: 'oauth.refresh', outcome: 'revoked', reason: 'client_mismatch', subject: 'alice', client: 'client.example', session: started.session });
  });

  it('revokes the session when the token is presented for another resource', async () => {
    const { service } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId, resource: 'https://mcp.example/other' }), 'invalid_grant');
    await refusal(service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId }), 'invalid_grant');
  });

  it('revokes when the bound endpoint no longer admits the freshly verified user', async () => {
    const { service, upstream, events } = harness({ admits: (resource, identity) => resource === GRANT.resource && identity.groups.includes('mcp-users') });
    const started = await service.startSession(GRANT, 'upstream-0');
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    upstream.setGroups(['other']);
    await refusal(service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId }), 'invalid_grant');
    assert.equal(events.at(-1)?.reason, 'policy_refused');
    await refusal(service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId }), 'invalid_grant');
  });
});

describe('refresh service: revocation (RFC 7009)', () => {
  it('ends the session and its access tokens; unknown tokens and other clients change nothing', async () => {
    const { service, accessGrant, events } = harness();
    const started = await service.startSession(GRANT, 'upstream-0');
    const first = await service.refresh({ refreshToken: started.refreshToken!, clientId: GRANT.clientId });
    await service.revokeRefreshToken('never-issued');
    await service.revokeRefreshToken(first.refreshToken, 'https://other.example/client.json');
    assert.ok(await accessGrant(first.accessToken), 'another client cannot revoke it');
    await service.revokeRefreshToken(first.refreshToken, GRANT.clientId);
    assert.equal(await accessGrant(first.accessToken), undefined);
    assert.equal(await accessGrant(started.accessToken), undefined);
    await refusal(service.refresh({ refreshToken: first.refreshToken, clientId: GRANT.clientId }), 'invalid_grant');
    assert.deepEqual(outcomes(events), ['success', 'revoked', 'unknown']);
    assert.equal(events[1]?.reason, 'client_revocation');
  });

  it('writes access tokens through the one writer the code exchange uses, capped to the session end', async () => {
    const { memory, accessGrant, now } = harness();
    const grant = { clientId: GRANT.clientId, client: GRANT.client, resource: GRANT.resource, scope: GRANT.scope, identity: GRANT.identity, session: 'abcdefabcdef' };
    const expiresIn = accessLifetimeSeconds(900, now(), now() + 120_500);
    assert.equal(expiresIn, 120);
    const { accessToken } = await issueAccessToken(memory, NAMESPACE, grant, expiresIn, now());
    assert.equal((await accessGrant(accessToken))?.expiresAt, now() + 120_000);
    assert.equal(accessLifetimeSeconds(900, now()), 900);
  });
});
