import type { Logger } from '../core/logger.js';
import type { RequestLog } from '../core/rate-limited-log.js';
import type { Store } from '../storage/store.js';
import type { AuditSink } from './audit.js';
import type { ConsentPolicy } from './consent/consent-types.js';
import type { RegistrationPolicy } from './registration/registration-policy.js';
import type { RefreshLifetimes } from './refresh/lifetimes.js';
import type { UpstreamRefresher } from './upstream/upstream-refresh.js';
import type { UpstreamSignIn } from './bridge/bridge-context.js';
import type { ClientResolver } from './clients/known-client.js';
import type { SignInPageCatalog } from './pages/page-texts.js';
import type { ScopeGrants } from './scope-grants.js';

/**
 * One `mcp-auth` node, ready to serve: everything but the issuer, which comes from the runtime
 * (Base URL origin) of each endpoint the configuration protects.
 */
export interface AuthConfiguration {
  /** Stable identity of the configuration (its node id): one bridge per configuration and port. */
  readonly id: string;
  readonly slug: string;
  readonly namespace: string;
  /** The sign-in's own scopes (asked of the provider too): what a first sign-in is granted. */
  readonly scopes: readonly string[];
  /** Extra scopes the bridge issues by group, for step-up; never asked of the provider. */
  readonly scopeGrants: ScopeGrants;
  readonly accessTokenTtlSeconds: number;
  readonly consentPolicy: ConsentPolicy;
  /** Dynamic client registration (RFC 7591); off unless the admin enables it. */
  readonly registration: RegistrationPolicy;
  /** Present when refresh tokens are offered: the sealing key, lifetimes and the provider's refresher. */
  readonly refresh?: {
    readonly key: Buffer;
    readonly lifetimes: RefreshLifetimes;
    readonly upstream: UpstreamRefresher;
  };
  readonly store: Store;
  readonly clients: ClientResolver;
  /**
   * Whether a client metadata document at this URL would be accepted without fetching it (pinned, or
   * on an allowed host): the editor's sidebar tells which clients can sign in. Absent: unknown.
   */
  readonly acceptsClientDocument?: (url: string) => boolean;
  createUpstream(redirectUri: string): UpstreamSignIn;
  /** The words of the pages the bridge shows in the browser, in every shipped language. */
  readonly pages: SignInPageCatalog;
  readonly audit: AuditSink;
  readonly logger: Logger;
  /** For lines any client can cause once per request (refusals, outages): one per kind per interval. */
  readonly requestLog: RequestLog;
}
