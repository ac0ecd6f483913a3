import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entraIdentity, MAX_GROUPS, oidcIdentity } from '../../lib/auth/upstream/identity-claims.js';
import { parseProviderSettings, type EntraProviderSettings, type OidcProviderSettings } from '../../lib/auth/upstream/provider-settings.js';
import { parseRetryAfter, safeErrorCode, safeErrorDescription, UpstreamError } from '../../lib/auth/upstream/upstream-error.js';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const oidc = parseProviderSettings({ kind: 'oidc', issuer: 'https://idp.example.com', clientId: 'c', clientSecret: 's' }) as OidcProviderSettings;
const entra = parseProviderSettings({ kind: 'entra', tenantId: TENANT, clientId: '00000000-1111-2222-3333-444444444444', clientSecret: 's' }) as EntraProviderSettings;

function failsWith(run: () => unknown, reason: string) {
  assert.throws(run, (error: unknown) => error instanceof UpstreamError && error.reason === reason);
}

describe('OIDC identity', () => {
  it('takes the subject from the ID token and email, name and groups from UserInfo', () => {
    const identity = oidcIdentity({ sub: 'u1' }, { sub: 'u1', email: 'a@example.test', name: 'A', groups: ['g1', 'g2', 'g1', ''] }, oidc);
    assert.deepEqual(identity, { subject: 'u1', email: 'a@example.test', name: 'A', groups: ['g1', 'g2'] });
  });

  it('accepts a single group as a string', () => {
    assert.deepEqual(oidcIdentity({ sub: 'u1' }, { groups: 'only' }, oidc).groups, ['only']);
  });

  it('has no groups when UserInfo has no groups claim, even if the ID token has one', () => {
    assert.deepEqual(oidcIdentity({ sub: 'u1', groups: ['from-id-token'] }, {}, oidc).groups, []);
  });

  it('falls back to the ID token for the email only', () => {
    assert.equal(oidcIdentity({ sub: 'u1', email: 'id@example.test' }, {}, oidc).email, 'id@example.test');
  });

  it('leaves out an email that is not one', () => {
    const identity = oidcIdentity({ sub: 'u1' }, { email: 'not an email' }, oidc);
    assert.equal('email' in identity, false);
  });

  it('uses the configured claim names, own properties only', () => {
    const custom = { ...oidc, emailClaim: 'upn', groupsClaim: 'constructor' };
    const identity = oidcIdentity({ sub: 'u1' }, { upn: 'a@corp.test' }, custom);
    assert.equal(identity.email, 'a@corp.test');
    assert.deepEqual(identity.groups, [], 'Object.prototype.constructor is not a claim');
  });

  for (const groups of [42, { a: 1 }, ['ok', 7], [null]]) {
    it(`refuses a malformed groups claim ${JSON.stringify(groups)}`, () => {
      failsWith(() => oidcIdentity({ sub: 'u1' }, { groups }, oidc), 'invalid_response');
    });
  }

  it('refuses an oversized groups claim', () => {
    failsWith(() => oidcIdentity({ sub: 'u1' }, { groups: Array.from({ length: MAX_GROUPS + 1 }, (_, i) => `g${i}`) }, oidc), 'invalid_response');
    failsWith(() => oidcIdentity({ sub: 'u1' }, { groups: ['x'.repeat(257)] }, oidc), 'invalid_response');
  });

  it('refuses an ID token without a subject', () => {
    failsWith(() => oidcIdentity({}, {}, oidc), 'invalid_token');
  });

  it('returns frozen values', () => {
    const identity = oidcIdentity({ sub: 'u1' }, { groups: ['g'] }, oidc);
    assert.ok(Object.isFrozen(identity) && Object.isFrozen(identity.groups));
  });
});

describe('Entra identity', () => {
  const token = { sub: 'pairwise-sub', tid: TENANT, roles: ['mcp-users'], name: 'A', preferred_username: 'a@corp.test' };

  it('takes roles as groups and email from preferred_username', () => {
    assert.deepEqual(entraIdentity(token, entra), { subject: 'pairwise-sub', email: 'a@corp.test', name: 'A', groups: ['mcp-users'] });
  });

  it('prefers the email claim when present', () => {
    assert.equal(entraIdentity({ ...token, email: 'mail@corp.test' }, entra).email, 'mail@corp.test');
  });

  it('compares the tenant without regard to case', () => {
    assert.equal(entraIdentity({ ...token, tid: TENANT.toUpperCase() }, entra).subject, 'pairwise-sub');
  });

  it('refuses another tenant', () => {
    failsWith(() => entraIdentity({ ...token, tid: '11111111-2222-3333-4444-555555555555' }, entra), 'tenant_mismatch');
  });

  it('refuses a token without tid', () => {
    const { tid: _tid, ...withoutTid } = token;
    failsWith(() => entraIdentity(withoutTid, entra), 'missing_claim');
  });

  it('refuses a user without app roles', () => {
    failsWith(() => entraIdentity({ ...token, roles: undefined }, entra), 'missing_claim');
    failsWith(() => entraIdentity({ ...token, roles: [] }, entra), 'missing_claim');
  });

  it('refuses malformed roles', () => {
    failsWith(() => entraIdentity({ ...token, roles: [1] }, entra), 'invalid_token');
  });

  it('does not read groups (only roles carry Microsoft permissions)', () => {
    failsWith(() => entraIdentity({ ...token, roles: undefined, groups: ['mcp-users'] }, entra), 'missing_claim');
  });
});

describe('upstream error helpers', () => {
  it('keeps RFC 6749 error codes and replaces anything else', () => {
    assert.equal(safeErrorCode('access_denied'), 'access_denied');
    for (const code of ['bad"code', 'has space', '', null]) assert.equal(safeErrorCode(code), 'server_error', String(code));
    assert.equal(safeErrorDescription('User said no'), 'User said no');
    assert.equal(safeErrorDescription('line\nbreak'), undefined);
  });

  it('parses Retry-After as seconds or an HTTP date, within bounds', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    assert.equal(parseRetryAfter('120', now), 120);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:29:00 GMT', now), 60);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('99999', now), undefined);
    assert.equal(parseRetryAfter('-5', now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('2015-10-21', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
  });

  it('gives each reason a stable code', () => {
    const error = new UpstreamError('tenant_mismatch', 'x');
    assert.equal(error.code, 'upstream_tenant_mismatch');
    assert.equal(error.reason, 'tenant_mismatch');
    assert.equal(error.name, 'UpstreamError');
  });
});
