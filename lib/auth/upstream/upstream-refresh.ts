import * as oidc from 'openid-client';
import { entraIdentity, oidcIdentity, type Claims, type UpstreamIdentity } from './identity-claims.js';
import type { ProviderSettings } from './provider-settings.js';
import { codeOf, ID_TOKEN_CODES, lazyDiscovery, messageOf, TIMEOUT_CODES, upstreamTimeout } from './upstream-discovery.js';
import { findUpstreamError, safeErrorCode, UpstreamError } from './upstream-error.js';
import { createUpstreamFetch } from './upstream-fetch.js';

/** Who the provider confirms at refresh: the same shape the bridge keeps for a signed-in user. */
export interface RefreshedIdentity {
  readonly subject: string;
  readonly email?: string;
  readonly groups: readonly string[];
}

export interface UpstreamRefreshResult {
  readonly identity: RefreshedIdentity;
  /** The provider's new refresh token when it rotated it; absent means keep using the old one. */
  readonly upstreamRefreshToken?: string;
}

/**
 * Asks the provider to confirm a session again. Throws UpstreamError; the reason tells the caller
 * what to do with the session: `unavailable` (retry later, Retry-After in `retryAfterSeconds`),
 * `provider_config` (the bridge's client is refused: an administrator must act), anything else is
 * a definitive refusal of this user's session.
 */
export interface UpstreamRefresher {
  refresh(upstreamRefreshToken: string, expectedSubject: string): Promise<UpstreamRefreshResult>;
}

export interface UpstreamRefresherOptions {
  /** Per request to the provider (discovery, token, JWKS, UserInfo). */
  readonly timeoutMs?: number | undefined;
  /** Test clock for the ID token freshness check. */
  readonly now?: (() => number) | undefined;
}

/** A refreshed ID token must have been signed for this refresh, allowing for clock skew. */
const MAX_ID_TOKEN_AGE_SECONDS = 300;
const CLIENT_AUTH_ERRORS = new Set(['invalid_client', 'unauthorized_client', 'unsupported_grant_type']);
const PROVIDER_BUSY_ERRORS = new Set(['temporarily_unavailable', 'server_error', 'slow_down']);
const MALFORMED_CODES = new Set(['OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_PARSE_ERROR', 'OAUTH_INVALID_RESPONSE']);

/**
 * The refresh side of the upstream client: one refresh_token grant per rotation, and the identity
 * checked again as at sign-in, with nothing taken from earlier answers:
 * - Microsoft Entra ID: a freshly signed ID token is required (signature over JWKS, issuer,
 *   audience, tenant, unchanged subject, at least one current app role);
 * - generic OIDC: groups from a fresh UserInfo call for the expected subject, and a returned ID
 *   token is verified the same way (signature, issuer, audience, subject).
 */
export function createUpstreamRefresher(settings: ProviderSettings, options: UpstreamRefresherOptions = {}): UpstreamRefresher {
  const timeoutMs = upstreamTimeout(options.timeoutMs);
  const now = options.now ?? Date.now;
  const refreshScope = settings.kind === 'entra' ? [...new Set([...settings.scopes, 'offline_access'])].join(' ') : undefined;
  const configuration = lazyDiscovery(settings, { timeoutMs, fetch: createUpstreamFetch(timeoutMs) });

  async function refresh(upstreamRefreshToken: string, expectedSubject: string): Promise<UpstreamRefreshResult> {
    if (typeof upstreamRefreshToken !== 'string' || upstreamRefreshToken === '') {
      throw new UpstreamError('invalid_response', 'there is no provider refresh token to refresh with');
    }
    if (typeof expectedSubject !== 'string' || expectedSubject === '') {
      throw new UpstreamError('invalid_response', 'the session has no subject to confirm');
    }
    const config = await configuration();
    const startedAt = now();
    let tokens: Awaited<ReturnType<typeof oidc.refreshTokenGrant>>;
    try {
      tokens = await oidc.refreshTokenGrant(config, upstreamRefreshToken, refreshScope ? { scope: refreshScope } : undefined);
    } catch (error) {
      throw refreshFailure(error);
    }
    const idToken = tokens.claims() as Claims | undefined;
    if (idToken) checkIdToken(idToken, expectedSubject, settings.kind === 'entra' ? startedAt : undefined);

    let identity: UpstreamIdentity;
    if (settings.kind === 'entra') {
      if (!idToken) throw new UpstreamError('invalid_token', 'the refresh response carries no ID token; Microsoft must confirm the user with a fresh one');
      identity = entraIdentity(idToken, settings);
    } else {
      let userInfo: Claims;
      try {
        userInfo = await oidc.fetchUserInfo(config, tokens.access_token, expectedSubject) as Claims;
      } catch (error) {
        throw userInfoFailure(error);
      }
      // UserInfo was matched to the expected subject above; without an ID token that is the subject.
      identity = oidcIdentity(idToken ?? { sub: expectedSubject }, userInfo, settings);
    }
    if (identity.subject !== expectedSubject) throw new UpstreamError('invalid_token', 'the provider confirmed another subject');
    const rotated = tokens.refresh_token;
    return Object.freeze({
      identity: Object.freeze({
        subject: identity.subject,
        ...(identity.email === undefined ? {} : { email: identity.email }),
        groups: identity.groups,
      }),
      ...(typeof rotated === 'string' && rotated !== '' ? { upstreamRefreshToken: rotated } : {}),
    });
  }

  return Object.freeze({ refresh });
}

/**
 * openid-client has checked signature (non-repudiation), issuer, audience and expiry; the subject
 * must be the session's, and for Microsoft the token must be new (`freshSince`), not a replayed one.
 */
function checkIdToken(idToken: Claims, expectedSubject: string, freshSince: number | undefined): void {
  if (idToken.sub !== expectedSubject) throw new UpstreamError('invalid_token', 'the refreshed ID token names another subject');
  if (freshSince === undefined) return;
  const iat = idToken.iat;
  if (typeof iat !== 'number' || iat < Math.floor(freshSince / 1000) - MAX_ID_TOKEN_AGE_SECONDS) {
    throw new UpstreamError('invalid_token', 'the refreshed ID token was not freshly issued');
  }
}

function refreshFailure(error: unknown): UpstreamError {
  const known = findUpstreamError(error);
  if (known) return known;
  if (error instanceof oidc.ResponseBodyError) {
    const providerError = safeErrorCode(error.error);
    if (CLIENT_AUTH_ERRORS.has(error.error) || error.status === 401) {
      return new UpstreamError('provider_config', `token endpoint refused the bridge's client (${providerError})`);
    }
    if (PROVIDER_BUSY_ERRORS.has(error.error)) return new UpstreamError('unavailable', `token endpoint answered ${providerError}`);
    return new UpstreamError('provider_error', `identity provider refused the refresh (${providerError})`, { providerError });
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    return error.status === 401
      ? new UpstreamError('provider_config', 'token endpoint refused the bridge\'s client (HTTP 401)')
      : new UpstreamError('provider_error', `token endpoint answered HTTP ${error.status} with a challenge`, { providerError: 'invalid_request' });
  }
  const code = codeOf(error);
  if (TIMEOUT_CODES.has(code)) return new UpstreamError('unavailable', 'token request timed out');
  const messages = causeMessages(error);
  if (ID_TOKEN_CODES.has(code) || /JWT|ID Token|signature/i.test(messages)) {
    return new UpstreamError('invalid_token', `refreshed ID token rejected: ${messageOf(error)} [${code}]`);
  }
  // Not an answer about this user: something that is not the provider (a proxy's error page) or a
  // broken provider. The session waits for it to be itself again.
  if (MALFORMED_CODES.has(code)) return new UpstreamError('unavailable', `token response unusable: ${messageOf(error)} [${code}]`);
  return new UpstreamError('unavailable', `token request failed: ${messageOf(error)} [${code}]`);
}

function userInfoFailure(error: unknown): UpstreamError {
  const known = findUpstreamError(error);
  if (known) return known;
  const code = codeOf(error);
  if (TIMEOUT_CODES.has(code)) return new UpstreamError('unavailable', 'UserInfo request timed out');
  if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED') return new UpstreamError('invalid_response', 'UserInfo describes another subject');
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.WWWAuthenticateChallengeError) {
    const providerError = error instanceof oidc.ResponseBodyError ? safeErrorCode(error.error) : 'invalid_token';
    return new UpstreamError('provider_error', `UserInfo refused the refreshed access token (${providerError})`, { providerError });
  }
  return new UpstreamError('unavailable', `UserInfo response unusable: ${messageOf(error)} [${code}]`);
}

function causeMessages(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    messages.push(current.message);
    current = current.cause;
  }
  return messages.join(' | ');
}
