import { envNameFrom, readEnv, type Environment } from '../config/env-secrets.js';
import { McpPaletteError } from '../core/errors.js';
import { parseHostAllowList, type HostAllowList } from './clients/host-allow-list.js';
import { parseConsentPolicy } from './consent/consent-settings.js';
import { parseRegistrationPolicy, type RegistrationPolicy } from './registration/registration-policy.js';
import { parseRefreshLifetimes, type RefreshLifetimes } from './refresh/lifetimes.js';
import { parseOptionalRefreshKey } from './refresh/refresh-key.js';
import type { ConsentPolicy } from './consent/consent-types.js';
import type { ClientMetadata } from './clients/client-metadata.js';
import { parsePinnedClients } from './clients/pinned-clients.js';
import { parseScopeGrants, type ScopeGrants } from './scope-grants.js';
import { namespaceOf, parseProviderSettings, type ProviderSettings } from './upstream/provider-settings.js';

/** A validated `mcp-auth` node, secrets resolved. Never log it: it holds the client secret. */
export interface AuthSettings {
  readonly slug: string;
  readonly provider: ProviderSettings;
  readonly namespace: string;
  readonly allowList: HostAllowList;
  readonly pinnedClients: ReadonlyMap<string, ClientMetadata>;
  readonly accessTokenTtlSeconds: number;
  readonly consentPolicy: ConsentPolicy;
  readonly registration: RegistrationPolicy;
  /** Set when the selected provider has a Refresh Key: refresh tokens are offered. */
  readonly refresh: { readonly key: Buffer; readonly lifetimes: RefreshLifetimes } | undefined;
  /** Extra scopes issued by group (*Scopes by group*), for items that require them. */
  readonly scopeGrants: ScopeGrants;
}

export interface AuthCredentials {
  readonly oidcClientSecret?: string;
  readonly entraClientSecret?: string;
  readonly oidcRefreshKey?: string;
  readonly entraRefreshKey?: string;
}

export const ACCESS_TOKEN_TTL_MAX_SECONDS = 900;
const SLUG = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * Reads the node's properties and credentials. Secrets come only from Node-RED credentials or from
 * an `MCP_*` environment variable, so a flow cannot point the bridge at other process secrets.
 * There is deliberately no provider default: an unsaved or legacy configuration must be chosen.
 */
export function parseAuthConfig(
  config: Record<string, unknown>,
  credentials: AuthCredentials | undefined,
  env: Environment = process.env,
): AuthSettings {
  const slug = text(config.slug);
  if (!SLUG.test(slug)) throw new McpPaletteError('invalid_slug', 'OAuth slug must match ^[a-z][a-z0-9-]{0,62}$');

  const kind = text(config.provider);
  const provider =
    kind === 'oidc'
      ? parseProviderSettings({
          kind,
          issuer: text(config.oidcIssuer),
          clientId: text(config.oidcClientId),
          clientSecret: secretFrom(config.oidcSecretEnv, credentials?.oidcClientSecret, env),
          emailClaim: optional(config.oidcEmailClaim),
          groupsClaim: optional(config.oidcGroupsClaim),
        })
      : kind === 'entra'
        ? parseProviderSettings(
            {
              kind,
              tenantId: text(config.entraTenantId),
              clientId: text(config.entraClientId),
              clientSecret: secretFrom(config.entraSecretEnv, credentials?.entraClientSecret, env),
              authorityHost: optional(config.entraAuthority),
            },
            // A loopback authority reaches only this machine: the same rule as a loopback OIDC issuer.
            { allowLoopbackAuthority: true },
          )
        : (() => {
            throw new McpPaletteError('invalid_provider', 'choose the OIDC or the Microsoft Entra ID provider');
          })();

  let allowList: HostAllowList;
  try {
    allowList = parseHostAllowList(text(config.clientHosts));
  } catch (error) {
    throw new McpPaletteError('invalid_client_hosts', 'client hosts list is invalid', { reason: error instanceof Error ? error.message : '' });
  }
  const pinnedClients = parsePinnedClients(text(config.pinnedClients));
  const accessTokenTtlSeconds = ttl(config.accessTokenTtl);
  const consentPolicy = parseConsentPolicy(config);
  const registration = parseRegistrationPolicy(config);
  const scopeGrants = parseScopeGrants(config.scopeGroups);
  // Each provider tab has its own key, so switching provider never reuses the other's sessions.
  const key = parseOptionalRefreshKey(kind === 'oidc' ? credentials?.oidcRefreshKey : credentials?.entraRefreshKey);
  const refresh = key
    ? {
        key,
        lifetimes: parseRefreshLifetimes({
          accessSeconds: accessTokenTtlSeconds,
          inactivitySeconds: config.refreshInactivitySeconds,
          absoluteSeconds: config.sessionMaxSeconds,
        }),
      }
    : undefined;
  return Object.freeze({ slug, provider, namespace: namespaceOf(provider, slug), allowList, pinnedClients, accessTokenTtlSeconds, consentPolicy, registration, refresh, scopeGrants });
}

function secretFrom(envName: unknown, credential: string | undefined, env: Environment): string {
  const name = envNameFrom(envName);
  return name ? readEnv(env, name) : (credential ?? '');
}

function ttl(value: unknown): number {
  if (value === undefined || value === null || value === '') return ACCESS_TOKEN_TTL_MAX_SECONDS;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > ACCESS_TOKEN_TTL_MAX_SECONDS) {
    throw new McpPaletteError('invalid_token_ttl', `access token lifetime must be 1-${ACCESS_TOKEN_TTL_MAX_SECONDS} seconds`);
  }
  return seconds;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function optional(value: unknown): string | undefined {
  return text(value) || undefined;
}
