import type { AccessPolicy } from '../../access/access-policy.js';
import { createClientAddressOf } from '../../http/client-address.js';
import type { MountedRoute, RouteSite } from '../../http/route-site.js';
import type { McpPaletteError } from '../../core/errors.js';
import { AccessGrantCache } from '../access-grant-cache.js';
import type { AuditSink } from '../audit.js';
import type { AuthConfiguration } from '../auth-configuration.js';
import { createAuthorizeHandler } from './authorize.js';
import { createBearerAccess } from './bearer-access.js';
import { routePaths, type BridgeContext, type FinishedSignIn, type ProtectedEndpoint } from './bridge-context.js';
import { createCallbackHandler } from './callback.js';
import { createConsentHandler } from './consent-route.js';
import { createConsent } from '../consent/consent.js';
import { offeredScopes, prmPathFor, protectedResourceMetadata, serveDocument } from './metadata.js';
import { createTokenHandler } from './token.js';
import { createRefreshService } from '../refresh/refresh-service.js';
import { createRegistrationHandler } from '../registration/register-client.js';
import { createRevocationHandler } from '../registration/revoke.js';

/**
 * One auth configuration serving on one listener: its /oauth/<slug>/* routes, one protected-resource
 * document per endpoint, and the bearer check of each endpoint. Created with its first endpoint,
 * closed with its last.
 */
export class AuthBridge {
  readonly context: BridgeContext;
  private readonly endpoints = new Map<string, ProtectedEndpoint>();
  private readonly endpointRoutes = new Map<string, MountedRoute>();
  private readonly routes: MountedRoute[] = [];

  constructor(
    readonly auth: AuthConfiguration,
    readonly issuer: string,
    private readonly site: RouteSite,
    readonly trustedProxies: readonly string[] = [],
  ) {
    const paths = routePaths(auth.slug);
    this.context = {
      clientAddressOf: createClientAddressOf(trustedProxies),
      slug: auth.slug,
      issuer,
      namespace: auth.namespace,
      store: auth.store,
      accessGrants: new AccessGrantCache({ store: auth.store, namespace: auth.namespace }),
      upstream: auth.createUpstream(`${issuer}${paths.callback}`),
      clients: auth.clients,
      pages: auth.pages,
      accessTokenTtlSeconds: auth.accessTokenTtlSeconds,
      scopes: auth.scopes,
      scopeGrants: auth.scopeGrants,
      audit: auth.audit,
      logger: auth.logger,
      requestLog: auth.requestLog,
      consent: createConsent<FinishedSignIn>({
        store: auth.store,
        namespace: auth.namespace,
        slug: auth.slug,
        issuer,
        policy: auth.consentPolicy,
        secureCookies: issuer.startsWith('https:'),
        logger: auth.logger,
        requestLog: auth.requestLog,
      }),
      refresh: auth.refresh
        ? createRefreshService({
            store: auth.store,
            namespace: auth.namespace,
            key: auth.refresh.key,
            lifetimes: auth.refresh.lifetimes,
            upstream: auth.refresh.upstream,
            audit: auth.audit,
            logger: auth.logger,
            // A session stays bound to its endpoint: gone, or the user no longer in its groups, ends it.
            admits: (resource, identity) => {
              const endpoint = this.endpoints.get(resource);
              return endpoint !== undefined && endpoint.groups.some((group) => identity.groups.includes(group));
            },
          })
        : undefined,
      endpointForResource: (resource) => this.endpoints.get(resource),
      soleEndpoint: () => (this.endpoints.size === 1 ? this.endpoints.values().next().value : undefined),
    };
  }

  /** A route given up to one of Node-RED's (see HostRouteTable.recheck): said once, in the log. */
  readonly onRouteYielded = (error: McpPaletteError) => {
    this.auth.logger.warn(`${error.message}: this OAuth route is no longer served; give the other route another path`);
  };

  get size(): number {
    return this.endpoints.size;
  }

  /** Mounts the slug routes; rejects with `path_conflict` when another configuration owns the slug here. */
  async open(): Promise<void> {
    const secure = this.issuer.startsWith('https:');
    const paths = routePaths(this.auth.slug);
    const handlers = [
      [paths.authorize, createAuthorizeHandler(this.context, secure)],
      [paths.callback, createCallbackHandler(this.context, secure)],
      [paths.token, createTokenHandler(this.context)],
      [paths.consent, createConsentHandler(this.context)],
      [
        paths.revoke,
        createRevocationHandler({
          store: this.auth.store,
          namespace: this.auth.namespace,
          logger: this.auth.logger,
          audit: this.auth.audit,
          ...(this.context.refresh ? { revokeRefreshToken: this.context.refresh.revokeRefreshToken } : {}),
        }),
      ],
      ...(this.auth.registration.enabled
        ? [[paths.register, createRegistrationHandler({ store: this.auth.store, namespace: this.auth.namespace, policy: this.auth.registration, logger: this.auth.logger, audit: this.auth.audit, allowRefreshToken: this.context.refresh !== undefined, clientAddress: this.context.clientAddressOf })] as const]
        : []),
    ] as const;
    try {
      for (const [path, handler] of handlers) this.routes.push(await this.site.mount(path, handler, { onYield: this.onRouteYielded }));
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** `audit` is the endpoint's own sink: token refusals are logged by the endpoint they hit. */
  async protect(endpoint: ProtectedEndpoint, audit: AuditSink): Promise<AccessPolicy> {
    const route = await this.site.mount(
      prmPathFor(endpoint),
      serveDocument(() => protectedResourceMetadata(endpoint.resource, this.issuer, offeredScopes(this.auth), endpoint.serverName)),
      { onYield: this.onRouteYielded },
    );
    this.endpoints.set(endpoint.resource, endpoint);
    this.endpointRoutes.set(endpoint.resource, route);
    return createBearerAccess(this.context, endpoint, audit);
  }

  async release(endpoint: ProtectedEndpoint): Promise<void> {
    this.endpoints.delete(endpoint.resource);
    const route = this.endpointRoutes.get(endpoint.resource);
    this.endpointRoutes.delete(endpoint.resource);
    await route?.unmount();
  }

  async close(): Promise<void> {
    this.context.accessGrants.close();
    const routes = this.routes.splice(0);
    await Promise.all(routes.map((route) => route.unmount()));
  }
}
