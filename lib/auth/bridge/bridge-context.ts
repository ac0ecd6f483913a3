import type { ClientAddressOf } from '../../http/client-address.js';
import type { RequestLog } from '../../core/rate-limited-log.js';
import type { Logger } from '../../core/logger.js';
import type { Store } from '../../storage/store.js';
import type { AuditSink } from '../audit.js';
import { consentPath } from '../consent/consent-types.js';
import type { Consent } from '../consent/consent.js';
import type { SignedInIdentity } from '../identity.js';
import type { RefreshService } from '../refresh/refresh-service.js';
import type { IssuedCode } from '../sign-in-records.js';

/** One MCP endpoint this bridge issues tokens for. `resource` is its absolute URL (RFC 8707). */
export interface ProtectedEndpoint {
  readonly path: string;
  readonly resource: string;
  readonly groups: readonly string[];
  readonly serverName: string;
}

/** The metadata the bridge needs about an MCP client (from a CIMD document or a pinned copy). */
export interface KnownClient {
  readonly clientId: string;
  readonly clientName?: string;
  /** Registered through dynamic client registration rather than identified by a metadata document. */
  readonly registered?: boolean;
  readonly redirectUriAllowed: (redirectUri: string) => boolean;
  /**
   * May errors be sent to this (allowed) redirect URI before the user approved the client? True for
   * metadata-document clients (their host is allow-listed, or the admin pinned them) and for
   * registered clients redirecting to loopback or to an allow-listed https host. Anyone may register
   * any https URI, so any other registered redirect would make the bridge an open redirector
   * (RFC 9700 §4.11.2): its errors are shown on a page of the bridge instead.
   */
  readonly redirectTrusted: (redirectUri: string) => boolean;
}

export interface ClientResolver {
  /** Throws ClientRejected (with a description safe to show) when the client may not sign in. */
  resolve(clientId: string): Promise<KnownClient>;
}

export class ClientRejected extends Error {
  constructor(readonly description: string) {
    super(description);
    this.name = 'ClientRejected';
  }
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
  readonly upstream: UpstreamSignIn;
  readonly clients: ClientResolver;
  readonly accessTokenTtlSeconds: number;
  readonly scopes: readonly string[];
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
