import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpPaletteError } from '../../lib/core/errors.js';
import {
  ENTRA_SCOPES,
  isLoopbackHttpIssuer,
  namespaceOf,
  OIDC_SCOPES,
  parseProviderSettings,
  type EntraProviderInput,
  type OidcProviderInput,
  type ProviderSettingsInput,
} from '../../lib/auth/upstream/provider-settings.js';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const APP = '00000000-1111-2222-3333-444444444444';

const oidc = (overrides: Partial<OidcProviderInput> = {}): OidcProviderInput => ({
  kind: 'oidc',
  issuer: 'https://idp.example.com/realms/team',
  clientId: 'mcp-bridge',
  clientSecret: 's3cret',
  ...overrides,
});

const entra = (overrides: Partial<EntraProviderInput> = {}): EntraProviderInput => ({
  kind: 'entra',
  tenantId: TENANT,
  clientId: APP,
  clientSecret: 's3cret',
  ...overrides,
});

function refuses(input: ProviderSettingsInput, code: string, options?: { allowLoopbackAuthority?: boolean }) {
  assert.throws(() => parseProviderSettings(input, options), (error: unknown) => {
    assert.ok(error instanceof McpPaletteError);
    assert.equal(error.code, code);
    return true;
  });
}

describe('OIDC provider settings', () => {
  it('fills the claim defaults and fixes the scopes', () => {
    const settings = parseProviderSettings(oidc());
    assert.deepEqual({ ...settings }, {
      kind: 'oidc',
      issuer: 'https://idp.example.com/realms/team',
      clientId: 'mcp-bridge',
      clientSecret: 's3cret',
      emailClaim: 'email',
      groupsClaim: 'groups',
      scopes: ['openid', 'profile', 'email', 'groups'],
    });
    assert.equal(settings.scopes, OIDC_SCOPES);
    assert.ok(Object.isFrozen(settings) && Object.isFrozen(settings.scopes));
  });

  it('trims fields but keeps the secret byte for byte', () => {
    const settings = parseProviderSettings(oidc({ issuer: '  https://idp.example.com ', clientId: ' id ', clientSecret: ' pad ' }));
    assert.equal(settings.issuer, 'https://idp.example.com/');
    assert.equal(settings.clientId, 'id');
    assert.equal(settings.clientSecret, ' pad ');
  });

  it('keeps a trailing slash the provider publishes (issuers compare exactly)', () => {
    assert.equal(parseProviderSettings(oidc({ issuer: 'https://tenant.auth0.example/' })).issuer, 'https://tenant.auth0.example/');
  });

  for (const issuer of ['http://127.0.0.1:8080', 'http://[::1]:9000/realm', 'http://localhost:3000']) {
    it(`allows plain http on loopback: ${issuer}`, () => {
      const settings = parseProviderSettings(oidc({ issuer }));
      assert.equal(isLoopbackHttpIssuer(settings.issuer), true);
    });
  }

  for (const issuer of [
    'http://idp.example.com',
    'http://10.0.0.5',
    'http://0.0.0.0:8080',
    'ftp://idp.example.com',
    'idp.example.com',
    '',
    'https://idp.example.com/?tenant=a',
    'https://idp.example.com/#x',
    'https://user:pw@idp.example.com',
  ]) {
    it(`refuses the issuer ${JSON.stringify(issuer)}`, () => refuses(oidc({ issuer }), 'invalid_issuer'));
  }

  it('does not ask openid-client to allow http for an https issuer', () => {
    assert.equal(isLoopbackHttpIssuer('https://127.0.0.1/'), false);
  });

  for (const clientId of ['', '   ', 'has space', 'x'.repeat(513), 'tab\there']) {
    it(`refuses the client ID ${JSON.stringify(clientId.slice(0, 20))}`, () => refuses(oidc({ clientId }), 'invalid_client_id'));
  }

  for (const clientSecret of ['', '   ', undefined as unknown as string]) {
    it(`refuses the client secret ${JSON.stringify(clientSecret)}`, () => refuses(oidc({ clientSecret }), 'missing_client_secret'));
  }

  it('accepts namespaced claim names', () => {
    const settings = parseProviderSettings(oidc({ emailClaim: 'upn', groupsClaim: 'https://example.com/claims/groups' }));
    assert.ok(settings.kind === 'oidc');
    assert.equal(settings.emailClaim, 'upn');
    assert.equal(settings.groupsClaim, 'https://example.com/claims/groups');
  });

  it('treats a blank claim name as the default', () => {
    const settings = parseProviderSettings(oidc({ groupsClaim: '  ' }));
    assert.equal(settings.kind === 'oidc' && settings.groupsClaim, 'groups');
  });

  for (const name of ['has space', 'x'.repeat(257), 'a\tb', 'grüppen']) {
    it(`refuses the claim name ${JSON.stringify(name.slice(0, 20))}`, () => {
      refuses(oidc({ groupsClaim: name }), 'invalid_claim_name');
      refuses(oidc({ emailClaim: name }), 'invalid_claim_name');
    });
  }

  it('refuses an unknown provider kind', () => {
    refuses({ kind: 'saml' } as unknown as ProviderSettingsInput, 'invalid_provider');
    refuses(undefined as unknown as ProviderSettingsInput, 'invalid_provider');
  });
});

describe('Microsoft Entra ID settings', () => {
  it('derives the tenant-specific v2.0 issuer on the public cloud and fixes the scopes', () => {
    const settings = parseProviderSettings(entra());
    assert.equal(settings.kind, 'entra');
    assert.equal(settings.issuer, `https://login.microsoftonline.com/${TENANT}/v2.0`);
    assert.equal(settings.scopes, ENTRA_SCOPES);
    assert.deepEqual([...settings.scopes], ['openid', 'profile', 'email']);
  });

  it('normalises GUIDs to lower case, the form of the tid and aud claims', () => {
    const settings = parseProviderSettings(entra({ tenantId: TENANT.toUpperCase(), clientId: ` ${APP.toUpperCase()} ` }));
    assert.equal(settings.kind === 'entra' && settings.tenantId, TENANT);
    assert.equal(settings.clientId, APP);
  });

  for (const tenantId of ['common', 'organizations', 'contoso.onmicrosoft.com', '72f988bf86f141af91ab2d7cd011db47', `${TENANT}x`, '']) {
    it(`refuses the tenant ${JSON.stringify(tenantId)}`, () => refuses(entra({ tenantId }), 'invalid_tenant'));
  }

  for (const clientId of ['mcp-bridge', '', '00000000-1111-2222-3333-44444444444g']) {
    it(`refuses the application ID ${JSON.stringify(clientId)}`, () => refuses(entra({ clientId }), 'invalid_client_id'));
  }

  it('requires a client secret', () => refuses(entra({ clientSecret: '' }), 'missing_client_secret'));

  for (const [authorityHost, origin] of [
    ['https://login.microsoftonline.us', 'https://login.microsoftonline.us'],
    ['login.chinacloudapi.cn', 'https://login.chinacloudapi.cn'],
    ['https://login.partner.microsoftonline.cn/', 'https://login.partner.microsoftonline.cn'],
    ['HTTPS://LOGIN.MICROSOFTONLINE.COM', 'https://login.microsoftonline.com'],
  ] as const) {
    it(`allows the sovereign cloud ${authorityHost}`, () => {
      const settings = parseProviderSettings(entra({ authorityHost }));
      assert.equal(settings.kind === 'entra' && settings.authorityHost, origin);
      assert.equal(settings.issuer, `${origin}/${TENANT}/v2.0`);
    });
  }

  for (const authorityHost of [
    'https://login.microsoftonline.com.evil.example',
    'https://evil.example',
    'http://login.microsoftonline.com',
    'https://login.microsoftonline.com:8443',
    'https://login.microsoftonline.com/common',
    'https://login.microsoftonline.com/?x=1',
    'http://127.0.0.1:8080',
  ]) {
    it(`refuses the authority ${authorityHost}`, () => refuses(entra({ authorityHost }), 'invalid_authority'));
  }

  it('allows a loopback authority only with the test override', () => {
    const settings = parseProviderSettings(entra({ authorityHost: 'http://127.0.0.1:8080' }), { allowLoopbackAuthority: true });
    assert.equal(settings.issuer, `http://127.0.0.1:8080/${TENANT}/v2.0`);
    assert.equal(isLoopbackHttpIssuer(settings.issuer), true);
    refuses(entra({ authorityHost: 'http://10.0.0.1:8080' }), 'invalid_authority', { allowLoopbackAuthority: true });
  });
});

describe('namespaceOf', () => {
  const base = parseProviderSettings(oidc());
  const ns = namespaceOf(base, 'team-login');

  it('is 16 hex characters and stable', () => {
    assert.match(ns, /^[0-9a-f]{16}$/);
    assert.equal(namespaceOf(parseProviderSettings(oidc()), 'team-login'), ns);
  });

  it('ignores the client secret, so rotating it keeps sessions', () => {
    assert.equal(namespaceOf(parseProviderSettings(oidc({ clientSecret: 'rotated' })), 'team-login'), ns);
    assert.equal(namespaceOf(parseProviderSettings(entra({ clientSecret: 'a' })), 'x'), namespaceOf(parseProviderSettings(entra({ clientSecret: 'b' })), 'x'));
  });

  it('changes with everything that changes who a user is', () => {
    const variants = [
      namespaceOf(parseProviderSettings(oidc({ issuer: 'https://other.example.com/realms/team' })), 'team-login'),
      namespaceOf(parseProviderSettings(oidc({ clientId: 'other-client' })), 'team-login'),
      namespaceOf(parseProviderSettings(oidc({ emailClaim: 'upn' })), 'team-login'),
      namespaceOf(parseProviderSettings(oidc({ groupsClaim: 'roles' })), 'team-login'),
      namespaceOf(base, 'other-login'),
      namespaceOf(parseProviderSettings(entra()), 'team-login'),
    ];
    for (const variant of variants) assert.notEqual(variant, ns);
    assert.equal(new Set(variants).size, variants.length);
  });

  it('does not let values run into each other', () => {
    // Moving a character between two parts must not produce the same input to the hash.
    const a = namespaceOf(parseProviderSettings(oidc({ emailClaim: 'ab', groupsClaim: 'c' })), 'team');
    const b = namespaceOf(parseProviderSettings(oidc({ emailClaim: 'a', groupsClaim: 'bc' })), 'team');
    assert.notEqual(a, b);
  });

  it('changes with the Entra tenant, application and cloud', () => {
    const entraNs = namespaceOf(parseProviderSettings(entra()), 'team-login');
    assert.notEqual(namespaceOf(parseProviderSettings(entra({ tenantId: '11111111-2222-3333-4444-555555555555' })), 'team-login'), entraNs);
    assert.notEqual(namespaceOf(parseProviderSettings(entra({ clientId: '11111111-2222-3333-4444-555555555555' })), 'team-login'), entraNs);
    assert.notEqual(namespaceOf(parseProviderSettings(entra({ authorityHost: 'login.microsoftonline.us' })), 'team-login'), entraNs);
  });

  for (const slug of ['', 'Team', '1team', 'team_login', 'a'.repeat(64)]) {
    it(`refuses the slug ${JSON.stringify(slug.slice(0, 20))}`, () => {
      assert.throws(() => namespaceOf(base, slug), (error: unknown) => error instanceof McpPaletteError && error.code === 'invalid_slug');
    });
  }
});
