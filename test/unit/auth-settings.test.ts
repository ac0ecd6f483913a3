import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACCESS_TOKEN_TTL_MAX_SECONDS, parseAuthConfig, type AuthCredentials } from '../../lib/auth/auth-settings.js';
import { ENTRA_SCOPES, OIDC_SCOPES } from '../../lib/auth/upstream/provider-settings.js';
import { isPaletteError } from '../../lib/core/errors.js';

const SECRET = 'Xq9-very-secret-value-7Zk';
const ENV_SECRET = 'Env-secret-value-from-MCP-3Rt';
const TENANT = '72F988BF-86F1-41AF-91AB-2D7CD011DB47';
const APP = '00000000-1111-2222-3333-444444444444';

const PINNED = {
  client_id: 'https://tools.example.com/mcp-client.json',
  client_name: 'Internal tool',
  redirect_uris: ['https://tools.example.com/oauth/callback'],
};

function oidcConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    slug: 'team-login',
    provider: 'oidc',
    oidcIssuer: 'https://idp.example.com/realms/team',
    oidcClientId: 'node-red-mcp',
    oidcSecretEnv: '',
    oidcEmailClaim: '',
    oidcGroupsClaim: '',
    clientHosts: 'claude.ai',
    pinnedClients: '',
    accessTokenTtl: '',
    ...overrides,
  };
}

function entraConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    slug: 'entra',
    provider: 'entra',
    entraTenantId: TENANT,
    entraClientId: APP,
    entraSecretEnv: '',
    entraAuthority: '',
    clientHosts: '',
    pinnedClients: '',
    accessTokenTtl: '900',
    ...overrides,
  };
}

const OIDC_CREDENTIALS: AuthCredentials = { oidcClientSecret: SECRET };
const ENTRA_CREDENTIALS: AuthCredentials = { entraClientSecret: SECRET };
const NO_ENV: Record<string, string | undefined> = {};

/** Asserts a McpPaletteError with `code`, whose message and params never carry either secret. */
function assertRefused(run: () => unknown, code: string, secrets: readonly string[] = [SECRET, ENV_SECRET]): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(isPaletteError(error), `expected McpPaletteError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    const serialized = JSON.stringify({ message: error.message, params: error.params, code: error.code, stack: error.stack });
    for (const secret of secrets) assert.ok(!serialized.includes(secret), `error leaks a secret: ${serialized}`);
    return true;
  });
}

describe('parseAuthConfig: OIDC', () => {
  it('reads a valid configuration, the secret from the credentials', () => {
    const settings = parseAuthConfig(oidcConfig(), OIDC_CREDENTIALS, NO_ENV);
    assert.equal(settings.slug, 'team-login');
    assert.equal(settings.provider.kind, 'oidc');
    assert.equal(settings.provider.issuer, 'https://idp.example.com/realms/team');
    assert.equal(settings.provider.clientId, 'node-red-mcp');
    assert.equal(settings.provider.clientSecret, SECRET);
    assert.deepEqual(settings.provider.scopes, OIDC_SCOPES);
    assert.deepEqual([...settings.provider.scopes], ['openid', 'profile', 'email', 'groups']);
    assert.equal(settings.accessTokenTtlSeconds, 900);
    assert.match(settings.namespace, /^[0-9a-f]{16}$/);
    assert.ok(Object.isFrozen(settings));
  });

  it('trims padded fields but keeps the secret byte for byte', () => {
    const padded = ` ${SECRET} `;
    const settings = parseAuthConfig(oidcConfig({ slug: '  team-login ', oidcClientId: ' node-red-mcp ' }), { oidcClientSecret: padded }, NO_ENV);
    assert.equal(settings.slug, 'team-login');
    assert.equal(settings.provider.clientId, 'node-red-mcp');
    assert.equal(settings.provider.clientSecret, padded);
  });

  it('reads the secret from an MCP_ environment variable, which wins over the credential', () => {
    const env = { MCP_OIDC_CLIENT_SECRET: ENV_SECRET };
    const settings = parseAuthConfig(oidcConfig({ oidcSecretEnv: 'MCP_OIDC_CLIENT_SECRET' }), OIDC_CREDENTIALS, env);
    assert.equal(settings.provider.clientSecret, ENV_SECRET);
    const withoutCredential = parseAuthConfig(oidcConfig({ oidcSecretEnv: 'MCP_OIDC_CLIENT_SECRET' }), undefined, env);
    assert.equal(withoutCredential.provider.clientSecret, ENV_SECRET);
  });

  it('reads custom claim names', () => {
    const settings = parseAuthConfig(oidcConfig({ oidcEmailClaim: 'upn', oidcGroupsClaim: 'https://example.com/groups' }), OIDC_CREDENTIALS, NO_ENV);
    assert.equal(settings.provider.kind === 'oidc' && settings.provider.emailClaim, 'upn');
    assert.equal(settings.provider.kind === 'oidc' && settings.provider.groupsClaim, 'https://example.com/groups');
  });

  it('refuses a missing secret', () => {
    assertRefused(() => parseAuthConfig(oidcConfig(), undefined, NO_ENV), 'missing_client_secret');
    assertRefused(() => parseAuthConfig(oidcConfig(), { oidcClientSecret: '   ' }, NO_ENV), 'missing_client_secret');
    // The Entra credential does not serve the OIDC provider.
    assertRefused(() => parseAuthConfig(oidcConfig(), ENTRA_CREDENTIALS, NO_ENV), 'missing_client_secret');
  });

  it('refuses a bad issuer without echoing the secret', () => {
    assertRefused(() => parseAuthConfig(oidcConfig({ oidcIssuer: 'http://idp.example.com/' }), OIDC_CREDENTIALS, NO_ENV), 'invalid_issuer');
    assertRefused(() => parseAuthConfig(oidcConfig({ oidcIssuer: `https://user:${SECRET}@idp.example.com/` }), OIDC_CREDENTIALS, NO_ENV), 'invalid_issuer');
  });
});

describe('parseAuthConfig: Microsoft Entra ID', () => {
  it('reads a valid configuration: GUIDs lower-cased, the public cloud by default', () => {
    const settings = parseAuthConfig(entraConfig(), ENTRA_CREDENTIALS, NO_ENV);
    assert.equal(settings.slug, 'entra');
    assert.equal(settings.provider.kind, 'entra');
    if (settings.provider.kind !== 'entra') return;
    assert.equal(settings.provider.tenantId, TENANT.toLowerCase());
    assert.equal(settings.provider.clientId, APP);
    assert.equal(settings.provider.clientSecret, SECRET);
    assert.equal(settings.provider.authorityHost, 'https://login.microsoftonline.com');
    assert.equal(settings.provider.issuer, `https://login.microsoftonline.com/${TENANT.toLowerCase()}/v2.0`);
    assert.deepEqual(settings.provider.scopes, ENTRA_SCOPES);
  });

  it('accepts a sovereign cloud authority, with or without the scheme', () => {
    for (const authority of ['login.microsoftonline.us', 'https://login.microsoftonline.us', 'https://login.microsoftonline.us/']) {
      const settings = parseAuthConfig(entraConfig({ entraAuthority: authority }), ENTRA_CREDENTIALS, NO_ENV);
      assert.equal(settings.provider.kind === 'entra' && settings.provider.authorityHost, 'https://login.microsoftonline.us', authority);
      assert.equal(settings.provider.issuer, `https://login.microsoftonline.us/${TENANT.toLowerCase()}/v2.0`);
    }
    const china = parseAuthConfig(entraConfig({ entraAuthority: 'login.chinacloudapi.cn' }), ENTRA_CREDENTIALS, NO_ENV);
    assert.equal(china.provider.issuer, `https://login.chinacloudapi.cn/${TENANT.toLowerCase()}/v2.0`);
  });

  it('refuses an authority that is not a Microsoft login host', () => {
    assertRefused(() => parseAuthConfig(entraConfig({ entraAuthority: 'login.example.com' }), ENTRA_CREDENTIALS, NO_ENV), 'invalid_authority');
  });

  it('refuses non-GUID tenant and application IDs', () => {
    assertRefused(() => parseAuthConfig(entraConfig({ entraTenantId: 'contoso.onmicrosoft.com' }), ENTRA_CREDENTIALS, NO_ENV), 'invalid_tenant');
    assertRefused(() => parseAuthConfig(entraConfig({ entraTenantId: 'common' }), ENTRA_CREDENTIALS, NO_ENV), 'invalid_tenant');
    assertRefused(() => parseAuthConfig(entraConfig({ entraClientId: 'node-red-mcp' }), ENTRA_CREDENTIALS, NO_ENV), 'invalid_client_id');
  });

  it('reads the secret from an MCP_ environment variable', () => {
    const settings = parseAuthConfig(entraConfig({ entraSecretEnv: 'MCP_ENTRA_SECRET' }), undefined, { MCP_ENTRA_SECRET: ENV_SECRET });
    assert.equal(settings.provider.clientSecret, ENV_SECRET);
  });
});

describe('parseAuthConfig: refusals', () => {
  it('refuses a configuration without a provider (no default)', () => {
    assertRefused(() => parseAuthConfig(oidcConfig({ provider: '' }), OIDC_CREDENTIALS, NO_ENV), 'invalid_provider');
    assertRefused(() => parseAuthConfig(oidcConfig({ provider: undefined }), OIDC_CREDENTIALS, NO_ENV), 'invalid_provider');
    assertRefused(() => parseAuthConfig(oidcConfig({ provider: 'github' }), OIDC_CREDENTIALS, NO_ENV), 'invalid_provider');
  });

  it('refuses a bad slug', () => {
    for (const slug of ['', 'Team', '1team', '-team', 'team_login', 'team/login', 'a'.repeat(64), undefined]) {
      assertRefused(() => parseAuthConfig(oidcConfig({ slug }), OIDC_CREDENTIALS, NO_ENV), 'invalid_slug');
    }
    assert.equal(parseAuthConfig(oidcConfig({ slug: 'a'.repeat(63) }), OIDC_CREDENTIALS, NO_ENV).slug, 'a'.repeat(63));
    assert.equal(parseAuthConfig(oidcConfig({ slug: 'a' }), OIDC_CREDENTIALS, NO_ENV).slug, 'a');
  });

  it('refuses an environment variable name outside MCP_*', () => {
    const env = { NODE_RED_CREDENTIAL_SECRET: ENV_SECRET, OIDC_SECRET: ENV_SECRET };
    for (const name of ['NODE_RED_CREDENTIAL_SECRET', 'OIDC_SECRET', 'mcp_secret', 'MCP_', 'MCP-SECRET']) {
      assertRefused(() => parseAuthConfig(oidcConfig({ oidcSecretEnv: name }), OIDC_CREDENTIALS, env), 'invalid_env_name');
      assertRefused(() => parseAuthConfig(entraConfig({ entraSecretEnv: name }), ENTRA_CREDENTIALS, env), 'invalid_env_name');
    }
  });

  it('refuses an MCP_ variable that is not set (or empty)', () => {
    assertRefused(() => parseAuthConfig(oidcConfig({ oidcSecretEnv: 'MCP_OIDC_SECRET' }), OIDC_CREDENTIALS, NO_ENV), 'missing_env');
    assertRefused(() => parseAuthConfig(oidcConfig({ oidcSecretEnv: 'MCP_OIDC_SECRET' }), OIDC_CREDENTIALS, { MCP_OIDC_SECRET: '' }), 'missing_env');
    assert.throws(
      () => parseAuthConfig(oidcConfig({ oidcSecretEnv: 'MCP_OIDC_SECRET' }), OIDC_CREDENTIALS, NO_ENV),
      (error: unknown) => isPaletteError(error) && error.params.name === 'MCP_OIDC_SECRET',
    );
  });

  it('does not read process.env when an env argument is given', () => {
    const name = 'MCP_AUTH_SETTINGS_TEST_SECRET';
    process.env[name] = ENV_SECRET;
    try {
      assertRefused(() => parseAuthConfig(oidcConfig({ oidcSecretEnv: name }), OIDC_CREDENTIALS, NO_ENV), 'missing_env');
      assert.equal(parseAuthConfig(oidcConfig({ oidcSecretEnv: name }), OIDC_CREDENTIALS).provider.clientSecret, ENV_SECRET);
    } finally {
      delete process.env[name];
    }
  });

  it('does not echo a secret pasted into the Secret env field', () => {
    // Someone pastes the secret itself where the variable name belongs.
    assertRefused(() => parseAuthConfig(oidcConfig({ oidcSecretEnv: SECRET }), undefined, NO_ENV), 'invalid_env_name');
    assertRefused(() => parseAuthConfig(entraConfig({ entraSecretEnv: SECRET }), undefined, NO_ENV), 'invalid_env_name');
  });

  it('refuses access token lifetimes outside 1..900 whole seconds, defaulting to 900', () => {
    assert.equal(ACCESS_TOKEN_TTL_MAX_SECONDS, 900);
    for (const ttl of [0, '0', 901, '901', 'x', -5, 1.5, '10s']) {
      assertRefused(() => parseAuthConfig(oidcConfig({ accessTokenTtl: ttl }), OIDC_CREDENTIALS, NO_ENV), 'invalid_token_ttl');
    }
    for (const blank of ['', undefined, null]) {
      assert.equal(parseAuthConfig(oidcConfig({ accessTokenTtl: blank }), OIDC_CREDENTIALS, NO_ENV).accessTokenTtlSeconds, 900);
    }
    assert.equal(parseAuthConfig(oidcConfig({ accessTokenTtl: '1' }), OIDC_CREDENTIALS, NO_ENV).accessTokenTtlSeconds, 1);
    assert.equal(parseAuthConfig(oidcConfig({ accessTokenTtl: 300 }), OIDC_CREDENTIALS, NO_ENV).accessTokenTtlSeconds, 300);
    assert.equal(parseAuthConfig(oidcConfig({ accessTokenTtl: '900' }), OIDC_CREDENTIALS, NO_ENV).accessTokenTtlSeconds, 900);
  });
});

describe('parseAuthConfig: clients', () => {
  it('parses the client host allow-list', () => {
    const settings = parseAuthConfig(oidcConfig({ clientHosts: 'claude.ai, *.Example.com\nchatgpt.com' }), OIDC_CREDENTIALS, NO_ENV);
    assert.deepEqual(settings.allowList.entries, ['claude.ai', '*.example.com', 'chatgpt.com']);
    assert.equal(settings.allowList.allows('claude.ai'), true);
    assert.equal(settings.allowList.allows('tools.example.com'), true);
    assert.equal(settings.allowList.allows('example.com'), false);
    assert.equal(settings.allowList.allows('evil.example'), false);
  });

  it('accepts an empty allow-list', () => {
    const settings = parseAuthConfig(oidcConfig({ clientHosts: '' }), OIDC_CREDENTIALS, NO_ENV);
    assert.deepEqual(settings.allowList.entries, []);
    assert.equal(settings.allowList.allows('claude.ai'), false);
  });

  it('refuses an invalid host with invalid_client_hosts, naming the reason', () => {
    assert.throws(
      () => parseAuthConfig(oidcConfig({ clientHosts: 'claude.ai https://evil.example' }), OIDC_CREDENTIALS, NO_ENV),
      (error: unknown) => {
        assert.ok(isPaletteError(error));
        assert.equal(error.code, 'invalid_client_hosts');
        assert.match(String(error.params.reason), /https:\/\/evil\.example/);
        return true;
      },
    );
    assertRefused(() => parseAuthConfig(oidcConfig({ clientHosts: '*.com' }), OIDC_CREDENTIALS, NO_ENV), 'invalid_client_hosts');
  });

  it('parses pinned clients', () => {
    const settings = parseAuthConfig(oidcConfig({ pinnedClients: JSON.stringify([PINNED]) }), OIDC_CREDENTIALS, NO_ENV);
    assert.deepEqual([...settings.pinnedClients.keys()], [PINNED.client_id]);
    const pinned = settings.pinnedClients.get(PINNED.client_id);
    assert.equal(pinned?.clientName, 'Internal tool');
    assert.deepEqual(pinned?.redirectUris, PINNED.redirect_uris);
    assert.equal(parseAuthConfig(oidcConfig(), OIDC_CREDENTIALS, NO_ENV).pinnedClients.size, 0);
  });

  it('refuses malformed pinned clients', () => {
    assertRefused(() => parseAuthConfig(oidcConfig({ pinnedClients: '{not json' }), OIDC_CREDENTIALS, NO_ENV), 'invalid_pinned_clients');
    assertRefused(
      () => parseAuthConfig(oidcConfig({ pinnedClients: JSON.stringify({ ...PINNED, client_id: 'http://tools.example.com/c.json' }) }), OIDC_CREDENTIALS, NO_ENV),
      'invalid_pinned_clients',
    );
  });
});

describe('parseAuthConfig: namespace', () => {
  const base = () => parseAuthConfig(oidcConfig(), OIDC_CREDENTIALS, NO_ENV).namespace;

  it('is stable for the same configuration', () => {
    assert.equal(base(), base());
  });

  it('changes with the slug, the issuer, the client ID and the claim names', () => {
    const changed = [
      oidcConfig({ slug: 'other-login' }),
      oidcConfig({ oidcIssuer: 'https://idp.example.com/realms/other' }),
      oidcConfig({ oidcClientId: 'another-client' }),
      oidcConfig({ oidcGroupsClaim: 'roles' }),
      oidcConfig({ oidcEmailClaim: 'upn' }),
    ].map((config) => parseAuthConfig(config, OIDC_CREDENTIALS, NO_ENV).namespace);
    for (const namespace of changed) assert.notEqual(namespace, base());
    assert.equal(new Set(changed).size, changed.length);
  });

  it('does not change with the secret, wherever it comes from', () => {
    assert.equal(parseAuthConfig(oidcConfig(), { oidcClientSecret: 'rotated-secret' }, NO_ENV).namespace, base());
    assert.equal(parseAuthConfig(oidcConfig({ oidcSecretEnv: 'MCP_X' }), undefined, { MCP_X: ENV_SECRET }).namespace, base());
  });

  it('does not change with the token lifetime or the client lists', () => {
    assert.equal(parseAuthConfig(oidcConfig({ accessTokenTtl: '60', clientHosts: 'chatgpt.com' }), OIDC_CREDENTIALS, NO_ENV).namespace, base());
  });

  it('differs between Entra tenants and between providers', () => {
    const entra = parseAuthConfig(entraConfig(), ENTRA_CREDENTIALS, NO_ENV).namespace;
    const otherTenant = parseAuthConfig(entraConfig({ entraTenantId: '11111111-2222-3333-4444-555555555555' }), ENTRA_CREDENTIALS, NO_ENV).namespace;
    const otherCloud = parseAuthConfig(entraConfig({ entraAuthority: 'login.microsoftonline.us' }), ENTRA_CREDENTIALS, NO_ENV).namespace;
    assert.notEqual(entra, otherTenant);
    assert.notEqual(entra, otherCloud);
    assert.notEqual(entra, parseAuthConfig(oidcConfig({ slug: 'entra' }), OIDC_CREDENTIALS, NO_ENV).namespace);
    assert.equal(parseAuthConfig(entraConfig(), { entraClientSecret: 'rotated' }, NO_ENV).namespace, entra);
  });

  it('never contains the secret', () => {
    const settings = parseAuthConfig(oidcConfig(), OIDC_CREDENTIALS, NO_ENV);
    assert.ok(!settings.namespace.includes(SECRET));
    assert.ok(!JSON.stringify({ namespace: settings.namespace, slug: settings.slug, allowList: settings.allowList.entries }).includes(SECRET));
  });
});
