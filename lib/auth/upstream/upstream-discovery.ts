import * as oidc from 'openid-client';
import { McpPaletteError } from '../../core/errors.js';
import { isLoopbackHttpIssuer, type ProviderSettings } from './provider-settings.js';
import { findUpstreamError, UpstreamError } from './upstream-error.js';

// What the sign-in client and the refresher share about talking to the provider: the per-request
// timeout, how the bridge authenticates, discovering the provider once, and reading openid-client's errors.

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;
const MAX_UPSTREAM_TIMEOUT_MS = 120_000;

/** openid-client's codes for a request that ran out of time. */
export const TIMEOUT_CODES = new Set(['OAUTH_TIMEOUT', 'OAUTH_ABORT']);
/** openid-client's codes for an ID token that failed verification. */
export const ID_TOKEN_CODES = new Set(['OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'OAUTH_KEY_SELECTION_FAILED']);

/** The per-request timeout in milliseconds, checked (1 ms to 2 minutes; default 10 s). */
export function upstreamTimeout(timeoutMs: number | undefined): number {
  const value = timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_UPSTREAM_TIMEOUT_MS) {
    throw new McpPaletteError('invalid_timeout', `timeoutMs must be an integer from 1 to ${MAX_UPSTREAM_TIMEOUT_MS}`);
  }
  return value;
}

/**
 * The bridge's client secret, sent as the provider asks: HTTP Basic unless its metadata lists only
 * `client_secret_post`.
 */
export function secretAuthentication(secret: string): oidc.ClientAuth {
  const basic = oidc.ClientSecretBasic(secret);
  const post = oidc.ClientSecretPost(secret);
  return (as, client, body, headers) => {
    const methods = as.token_endpoint_auth_methods_supported;
    const postOnly = Array.isArray(methods) && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    (postOnly ? post : basic)(as, client, body, headers);
  };
}

/**
 * The provider's configuration, discovered on first use: lazily, so a provider that is down at
 * deploy does not fail the deploy, and forgotten after a failure, so the next request tries again
 * instead of replaying it.
 *
 * Every ID token is checked against the provider's published keys (openid-client would otherwise
 * trust the token endpoint's TLS alone), because the identity, and for Microsoft the app roles,
 * come from it. A key set that cannot be fetched is an outage, not a bad signature.
 */
export function lazyDiscovery(settings: ProviderSettings, options: { timeoutMs: number; fetch: oidc.CustomFetch }): () => Promise<oidc.Configuration> {
  const clientAuth = secretAuthentication(settings.clientSecret);
  const insecure = isLoopbackHttpIssuer(settings.issuer);
  let jwksUri: string | undefined;
  const keySetAwareFetch: oidc.CustomFetch = async (url, init) => {
    const response = await options.fetch(url, init);
    if (jwksUri !== undefined && new URL(url).href === jwksUri && !response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new UpstreamError('unavailable', `identity provider key set answered HTTP ${response.status}`);
    }
    return response;
  };
  let discovered: Promise<oidc.Configuration> | undefined;

  async function discover(): Promise<oidc.Configuration> {
    let config: oidc.Configuration;
    try {
      config = await oidc.discovery(new URL(settings.issuer), settings.clientId, {}, clientAuth, {
        [oidc.customFetch]: keySetAwareFetch,
        // Our fetch times out first; openid-client's whole-second timeout is only a backstop.
        timeout: Math.ceil(options.timeoutMs / 1000) + 1,
        execute: insecure ? [oidc.allowInsecureRequests] : [],
      });
    } catch (error) {
      throw discoveryFailure(error);
    }
    oidc.enableNonRepudiationChecks(config);
    const published = config.serverMetadata().jwks_uri;
    jwksUri = published === undefined ? undefined : new URL(published).href;
    return config;
  }

  return () => {
    discovered ??= discover().catch((error: unknown) => {
      discovered = undefined;
      throw error;
    });
    return discovered;
  };
}

export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}

/** openid-client's own messages are fixed texts about what failed; they never quote token values. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : 'unknown error';
}

function discoveryFailure(error: unknown): UpstreamError {
  const known = findUpstreamError(error);
  if (known) return known;
  if (TIMEOUT_CODES.has(codeOf(error))) return new UpstreamError('unavailable', 'provider discovery timed out');
  return new UpstreamError('provider_config', `provider discovery failed: ${messageOf(error)} [${codeOf(error)}]`);
}
