import type { AccessPolicy } from '../../access/access-policy.js';
import { McpPaletteError } from '../../core/errors.js';
import type { MountedRoute, RouteSite } from '../../http/route-site.js';
import type { AuditSink } from '../audit.js';
import type { AuthConfiguration } from '../auth-configuration.js';
import { AuthBridge } from './auth-bridge.js';
import type { ProtectedEndpoint } from './bridge-context.js';
import { AS_METADATA_PATHS, authorizationServerMetadata, offeredScopes, PRM_PREFIX, protectedResourceMetadata, serveDocument } from './metadata.js';

export interface Protection {
  readonly access: AccessPolicy;
  release(): Promise<void>;
}

interface PortRoots {
  readonly bridges: Set<AuthBridge>;
  readonly routes: MountedRoute[];
}

/**
 * Which auth configuration serves which endpoint on which site (a port of its own, or Node-RED's
 * server). The root discovery documents are per site and answer only while exactly one configuration serves it: with two, a client could not
 * tell which authorization server an endpoint belongs to, so it must use the per-endpoint documents.
 */
export class AuthRegistry {
  private readonly bridges = new Map<string, AuthBridge>();
  private readonly roots = new Map<string, PortRoots>();
  private queue: Promise<unknown> = Promise.resolve();

  /** `trustedProxies`: the runtime's, whose X-Forwarded-For names the client (see client-site). */
  protect(
    auth: AuthConfiguration,
    site: RouteSite,
    issuer: string,
    endpoint: ProtectedEndpoint,
    audit: AuditSink,
    trustedProxies: readonly string[] = [],
  ): Promise<Protection> {
    return this.serialize(async () => {
      const bridge = await this.bridgeFor(auth, site, issuer, trustedProxies);
      let access: AccessPolicy;
      try {
        access = await bridge.protect(endpoint, audit);
      } catch (error) {
        await this.closeIfUnused(bridge, site);
        throw error;
      }
      let released = false;
      return {
        access,
        release: () =>
          this.serialize(async () => {
            if (released) return;
            released = true;
            await bridge.release(endpoint);
            await this.closeIfUnused(bridge, site);
          }),
      };
    });
  }

  private async bridgeFor(auth: AuthConfiguration, site: RouteSite, issuer: string, trustedProxies: readonly string[]): Promise<AuthBridge> {
    const key = `${auth.id}@${site.key}`;
    const existing = this.bridges.get(key);
    const sameProxies = existing !== undefined && existing.trustedProxies.join(',') === trustedProxies.join(',');
    if (existing && existing.auth === auth && existing.issuer === issuer && sameProxies) return existing;
    if (existing) {
      throw new McpPaletteError('auth_changed', 'the auth configuration changed while endpoints still use the old one', {});
    }
    const bridge = new AuthBridge(auth, issuer, site, trustedProxies);
    try {
      await bridge.open();
    } catch (error) {
      if (error instanceof McpPaletteError && error.code === 'path_conflict' && site.port !== undefined) {
        throw new McpPaletteError('slug_conflict', `OAuth slug ${auth.slug} is already used on port ${site.port}`, {
          slug: auth.slug,
          port: site.port,
        });
      }
      if (error instanceof McpPaletteError && error.code === 'node_red_path_conflict') {
        throw new McpPaletteError('node_red_slug_conflict', `OAuth slug ${auth.slug} is already used on Node-RED's HTTP server`, { slug: auth.slug });
      }
      throw error;
    }
    this.bridges.set(key, bridge);
    await this.addToRoots(bridge, site);
    return bridge;
  }

  private async addToRoots(bridge: AuthBridge, site: RouteSite): Promise<void> {
    let roots = this.roots.get(site.key);
    if (!roots) {
      roots = { bridges: new Set(), routes: [] };
      this.roots.set(site.key, roots);
      const sole = () => (roots!.bridges.size === 1 ? roots!.bridges.values().next().value : undefined);
      const asMetadata = serveDocument(() => {
        const only = sole();
        return only ? authorizationServerMetadata(only.issuer, only.auth.slug, offeredScopes(only.auth), { registration: only.auth.registration.enabled, refresh: only.auth.refresh !== undefined }) : undefined;
      });
      const rootPrm = serveDocument(() => {
        const only = sole();
        return only ? protectedResourceMetadata(only.issuer, only.issuer, offeredScopes(only.auth)) : undefined;
      });
      const onYield = bridge.onRouteYielded;
      for (const path of AS_METADATA_PATHS) roots.routes.push(await site.mount(path, asMetadata, { onYield }));
      roots.routes.push(await site.mount(PRM_PREFIX, rootPrm, { onYield }));
    }
    roots.bridges.add(bridge);
    if (roots.bridges.size > 1) {
      const where = site.port === undefined ? "Node-RED's HTTP server" : `port ${site.port}`;
      bridge.auth.logger.warn(`${where} has ${roots.bridges.size} auth configurations: root discovery documents are off; keep one mcp-auth per port`);
    }
  }

  private async closeIfUnused(bridge: AuthBridge, site: RouteSite): Promise<void> {
    if (bridge.size > 0) return;
    this.bridges.delete(`${bridge.auth.id}@${site.key}`);
    await bridge.close();
    const roots = this.roots.get(site.key);
    if (!roots) return;
    roots.bridges.delete(bridge);
    if (roots.bridges.size === 0) {
      this.roots.delete(site.key);
      await Promise.all(roots.routes.map((route) => route.unmount()));
    }
  }

  private serialize<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.queue.then(operation, operation);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** Process-wide: one bridge per auth configuration and site, whichever endpoints share it. */
export const authRegistry = new AuthRegistry();
