import type { ClientAddressOf } from '../../http/client-address.js';
import type { RequestLog } from '../../core/rate-limited-log.js';
import type { Logger } from '../../core/logger.js';
import type { Store } from '../../storage/store.js';
import type { AccessGrantCache } from '../access-grant-cache.js';
import type { AuditSink } from '../audit.js';
import { consentPath } from '../consent/consent-types.js';
import type { Consent } from '../consent/consent.js';
import type { ClientResolver } from '../clients/known-client.js';
import type { SignedInIdentity } from '../identity.js';
import type { RefreshService } from '../refresh/refresh-service.js';
import type { IssuedCode } from '../sign-in-records.js';
import type { SignInPageCatalog } from '../pages/page-texts.js';
import type { ScopeGrants } from '../scope-grants.js';

/** One MCP endpoint this bridge issues tokens for. `resource` is its absolute URL (RFC 8707). */
export interface ProtectedEndpoint {
  readonly path: string;
  readonly resource: string;
  readonly groups: readonly string[];
  readonly serverName: string;
}

export interface UpstreamSignIn {
  beginSignIn(): Promise<{ url: string; state: string; nonce: string; codeVerifier: string }>;
  completeSignIn(
    callbackUrl: URL,
    expected: { state: string; nonce: string; codeVerifier: string },
    options?: { includeRefreshToken?: boolean },
  ): Promise<SignedInIdentity & { readonly upstreamRefreshToken?: string }>;
}

/** The scope that asks for refresh tokens (OpenID Connect Core §11). */
export const OFFLINE_ACCESS = 'offline_access';

/** What a sign-in needs to finish once the user is known and allowed: at callback, or after consent. */
export interface FinishedSignIn {
  readonly issued: IssuedCode;
  readonly clientState?: string;
  readonly endpointPath: string;
  /** Whether errors may go back to issued.redirectUri (PendingSignIn.redirectTrusted). */
  readonly redirectTrusted?: boolean;
}

/** Everything a route handler of one bridge needs; built once per bridge, shared by its routes. */
export interface BridgeContext {
  readonly slug: string;
  /** The Base URL origin: issuer of every code and token, and `iss` in every authorization response. */
  readonly issuer: string;
  readonly namespace: string;
  readonly store: Store;
  /** The bearer check's reads of access grants (one storage read per token per second at most). */
  readonly accessGrants: AccessGrantCache;
  readonly upstream: UpstreamSignIn;
  readonly clients: ClientResolver;
  readonly pages: SignInPageCatalog;
  readonly accessTokenTtlSeconds: number;
  /** The sign-in's own scopes: named in the 401 challenge, granted when a client asks for none. */
  readonly scopes: readonly string[];
  /** Extra scopes issued by group; a client asks for them on step-up. */
  readonly scopeGrants: ScopeGrants;
  readonly audit: AuditSink;
  readonly logger: Logger;
  /** Lines a request can cause (storage or provider outages seen per request): rate limited per kind. */
  readonly requestLog: RequestLog;
  readonly consent: Consent<FinishedSignIn>;
  /** Present when refresh tokens are offered. */
  readonly refresh: RefreshService | undefined;
  /** The client's address for audit lines and rate limits; default the socket's peer. */
  readonly clientAddressOf?: ClientAddressOf;
  endpointForResource(resource: string): ProtectedEndpoint | undefined;
  /** The only protected endpoint, when there is exactly one (the default `resource`). */
  soleEndpoint(): ProtectedEndpoint | undefined;
}

/** Authorization state and one-time codes live this long (seconds). */
export const SIGN_IN_TTL_SECONDS = 300;

export function routePaths(slug: string) {
  return {
    authorize: `/oauth/${slug}/authorize`,
    callback: `/oauth/${slug}/callback`,
    token: `/oauth/${slug}/token`,
    consent: consentPath(slug),
    register: `/oauth/${slug}/register`,
    revoke: `/oauth/${slug}/revoke`,
  };
}
