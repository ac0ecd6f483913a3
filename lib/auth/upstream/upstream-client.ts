import * as oidc from 'openid-client';
import { McpPaletteError } from '../../core/errors.js';
import { constantTimeEqual } from '../secrets.js';
import { entraIdentity, oidcIdentity, type Claims, type UpstreamIdentity } from './identity-claims.js';
import type { ProviderSettings } from './provider-settings.js';
import { codeOf, ID_TOKEN_CODES, lazyDiscovery, messageOf, TIMEOUT_CODES, upstreamTimeout } from './upstream-discovery.js';
import { findUpstreamError, safeErrorCode, safeErrorDescription, UpstreamError } from './upstream-error.js';
import { createUpstreamFetch } from './upstream-fetch.js';


export interface UpstreamClientOptions {
  /** The bridge's callback as registered with the provider: absolute, no query, no fragment. */
  readonly redirectUri: string;
  /** Per request to the provider (discovery, JWKS, token, UserInfo). */
  readonly timeoutMs?: number | undefined;
}

/** What the bridge must keep (server side, single use) between sending the browser off and the callback. */
export interface UpstreamSignInRequest {
  readonly url: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

export interface UpstreamExpectations {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

export interface CompleteSignInOptions {
  /** Seam for upstream refresh (a later issue): hand back the provider's refresh token when it sent one. */
  readonly includeRefreshToken?: boolean | undefined;
}

export interface UpstreamClient {
  readonly issuer: string;
  readonly scopes: readonly string[];
  beginSignIn(): Promise<UpstreamSignInRequest>;
  completeSignIn(callbackUrl: URL, expected: UpstreamExpectations, options?: CompleteSignInOptions): Promise<UpstreamIdentity>;
}

/**
 * The bridge as a confidential OAuth client of its one upstream provider, with its own PKCE, state
 * and nonce. Provider tokens never leave this module: the access token is used once for UserInfo
 * (OIDC) and dropped with the ID token when `completeSignIn` returns.
 */
export function createUpstreamClient(settings: ProviderSettings, options: UpstreamClientOptions): UpstreamClient {
  const redirectUri = parseRedirectUri(options.redirectUri);
  const timeoutMs = upstreamTimeout(options.timeoutMs);
  const configuration = lazyDiscovery(settings, { timeoutMs, fetch: createUpstreamFetch(timeoutMs) });

  async function beginSignIn(): Promise<UpstreamSignInRequest> {
    const config = await configuration();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const parameters = {
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: settings.scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    };
    let url: URL;
    try {
      url = oidc.buildAuthorizationUrl(config, parameters);
    } catch {
      throw new UpstreamError('provider_config', 'provider metadata has no usable authorization endpoint');
    }
    return { url: url.href, state, nonce, codeVerifier };
  }

  async function completeSignIn(callbackUrl: URL, expected: UpstreamExpectations, opts: CompleteSignInOptions = {}): Promise<UpstreamIdentity> {
    checkExpectations(expected);
    const config = await configuration();
    const metadata = config.serverMetadata();
    const parameters = authorizationResponse(callbackUrl, expected.state, metadata.issuer, metadata.authorization_response_iss_parameter_supported === true);
    // Rebuilt on our registered redirect URI: openid-client derives redirect_uri from this URL, and
    // behind a proxy the URL the request arrived on is not the one the provider knows.
    const currentUrl = new URL(redirectUri);
    currentUrl.search = parameters.toString();

    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw tokenFailure(error);
    }
    const idToken = tokens.claims() as Claims | undefined;
    if (!idToken) throw new UpstreamError('invalid_token', 'token response carries no ID token');

    let identity: UpstreamIdentity;
    if (settings.kind === 'entra') {
      identity = entraIdentity(idToken, settings);
    } else {
      let userInfo: Claims;
      try {
        // The expected subject makes openid-client refuse UserInfo about anyone else.
        userInfo = await oidc.fetchUserInfo(config, tokens.access_token, String(idToken.sub)) as Claims;
      } catch (error) {
        throw userInfoFailure(error);
      }
      identity = oidcIdentity(idToken, userInfo, settings);
    }
    const refreshToken = opts.includeRefreshToken === true ? tokens.refresh_token : undefined;
    return typeof refreshToken === 'string' && refreshToken !== ''
      ? Object.freeze({ ...identity, upstreamRefreshToken: refreshToken })
      : identity;
  }

  return Object.freeze({ issuer: settings.issuer, scopes: settings.scopes, beginSignIn, completeSignIn });
}

/**
 * Client secret authentication as the provider advertises it: HTTP Basic unless the provider
 * lists only client_secret_post. Metadata cannot say what one client was registered with, so a
 * provider that lists both but registered this client for post will answer invalid_client.
 */

function parseRedirectUri(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new McpPaletteError('invalid_redirect_uri', 'redirect URI must be an absolute URL');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
    throw new McpPaletteError('invalid_redirect_uri', 'redirect URI must be http(s) without query, fragment or credentials');
  }
  return url.href;
}

function checkExpectations(expected: UpstreamExpectations): void {
  for (const field of ['state', 'nonce', 'codeVerifier'] as const) {
    if (typeof expected?.[field] !== 'string' || expected[field] === '') {
      throw new UpstreamError('invalid_response', `sign-in record has no ${field}`);
    }
  }
}

/**
 * The callback's parameters, checked before any request leaves: state (this sign-in, compared in
 * constant time), iss (RFC 9207 mix-up defence), then an error relayed from the provider, then the
 * code. openid-client repeats these checks; doing them first keeps the failure reasons exact.
 */
function authorizationResponse(callbackUrl: URL, expectedState: string, issuer: string, issRequired: boolean): URLSearchParams {
  const parameters = new URLSearchParams(callbackUrl.search);
  for (const name of ['state', 'code', 'iss', 'error', 'error_description']) {
    if (parameters.getAll(name).length > 1) throw new UpstreamError('invalid_response', `callback repeats the ${name} parameter`);
  }
  const state = parameters.get('state');
  if (state === null || !constantTimeEqual(state, expectedState)) {
    throw new UpstreamError('invalid_response', 'callback state does not belong to this sign-in');
  }
  const iss = parameters.get('iss');
  if (iss === null ? issRequired : iss !== issuer) {
    throw new UpstreamError('invalid_response', 'callback iss does not name the configured provider');
  }
  const error = parameters.get('error');
  if (error !== null) {
    const providerError = safeErrorCode(error);
    throw new UpstreamError('provider_error', `identity provider answered ${providerError}`, {
      providerError,
      providerErrorDescription: safeErrorDescription(parameters.get('error_description')),
    });
  }
  if (!parameters.get('code')) throw new UpstreamError('invalid_response', 'callback carries no authorization code');
  return parameters;
}

const CLIENT_AUTH_ERRORS = new Set(['invalid_client', 'unauthorized_client']);

function tokenFailure(error: unknown): UpstreamError {
  const known = findUpstreamError(error);
  if (known) return known;
  if (error instanceof oidc.ResponseBodyError) {
    if (CLIENT_AUTH_ERRORS.has(error.error) || error.status === 401) {
      return new UpstreamError('provider_config', `token endpoint refused the client credentials (${safeErrorCode(error.error)})`);
    }
    return new UpstreamError('invalid_response', `token endpoint refused the code (${safeErrorCode(error.error)})`);
  }
  // A 401 with a challenge (oidc-provider answers failed Basic authentication this way) is the
  // same verdict as invalid_client in the body.
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    return error.status === 401
      ? new UpstreamError('provider_config', 'token endpoint refused the client credentials (HTTP 401)')
      : new UpstreamError('invalid_response', `token endpoint answered HTTP ${error.status} with a challenge`);
  }
  if (error instanceof oidc.AuthorizationResponseError) {
    const providerError = safeErrorCode(error.error);
    return new UpstreamError('provider_error', `identity provider answered ${providerError}`, { providerError });
  }
  const code = codeOf(error);
  if (TIMEOUT_CODES.has(code)) return new UpstreamError('unavailable', 'token request timed out');
  const message = messageOf(error);
  if (ID_TOKEN_CODES.has(code) || /JWT|ID Token/.test(message)) {
    return new UpstreamError('invalid_token', `ID token rejected: ${message} [${code}]`);
  }
  return new UpstreamError('invalid_response', `token response rejected: ${message} [${code}]`);
}

function userInfoFailure(error: unknown): UpstreamError {
  const known = findUpstreamError(error);
  if (known) return known;
  const code = codeOf(error);
  if (TIMEOUT_CODES.has(code)) return new UpstreamError('unavailable', 'UserInfo request timed out');
  if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED') {
    return new UpstreamError('invalid_response', 'UserInfo describes another subject than the ID token');
  }
  if (error instanceof oidc.ResponseBodyError) {
    return new UpstreamError('invalid_response', `UserInfo refused (${safeErrorCode(error.error)})`);
  }
  return new UpstreamError('invalid_response', `UserInfo rejected: ${messageOf(error)} [${code}]`);
}

export { UpstreamError, type UpstreamErrorReason } from './upstream-error.js';
export type { UpstreamIdentity } from './identity-claims.js';
