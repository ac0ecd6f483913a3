import type { FlowServerSettings } from '../config/flow-server-config.js';
import type { RuntimeSettings } from '../config/runtime-config.js';
import { McpPaletteError } from '../core/errors.js';
import type { RouteSite } from '../http/route-site.js';
import type { AuditSink } from '../auth/audit.js';
import type { AuthConfiguration } from '../auth/auth-configuration.js';
import type { AuthRegistry } from '../auth/bridge/auth-registry.js';
import type { AccessPolicy } from './access-policy.js';
import { createLocalAccess } from './local-access.js';
import { isLoopbackHost } from './loopback.js';

export interface ResolvedAccess {
  readonly policy: AccessPolicy;
  release(): Promise<void>;
}

export interface AccessDependencies {
  /** The endpoint's `mcp-auth`, when one is selected and valid. */
  readonly auth: AuthConfiguration | undefined;
  readonly authRegistry: AuthRegistry;
  /** The endpoint node's audit sink (token refusals on this endpoint). */
  readonly audit: AuditSink;
  /** True when Node-RED puts its own authentication (httpNodeAuth) in front of its HTTP node routes. */
  readonly nodeRedAuth?: boolean;
}

/**
 * Chooses how callers get into an endpoint, failing closed: an access mode that cannot be enforced
 * stops the endpoint from starting (with a code naming the missing piece) instead of serving it open.
 */
export async function resolveAccess(endpoint: FlowServerSettings, runtime: RuntimeSettings, site: RouteSite, deps: AccessDependencies): Promise<ResolvedAccess> {
  const onNodeRed = runtime.server === 'node-red';
  if (endpoint.access === 'local') {
    if (!onNodeRed && !isLoopbackHost(runtime.host)) {
      throw new McpPaletteError('local_needs_loopback', `local access needs a loopback bind address, not ${runtime.host}`, { host: runtime.host });
    }
    // A Base URL on a local runtime is the name a local proxy or hosts entry gives it.
    const extra = runtime.baseUrl ? [new URL(runtime.baseUrl).hostname] : [];
    // Node-RED's server often listens on every address (Docker): there the peer itself is checked.
    return { policy: createLocalAccess(extra, { loopbackPeersOnly: onNodeRed }), release: async () => {} };
  }

  if (!runtime.baseUrl) throw new McpPaletteError('oauth_needs_base_url', 'OAuth access needs the runtime Base URL');
  const base = new URL(runtime.baseUrl);
  if (base.pathname !== '/' && base.pathname !== '') {
    throw new McpPaletteError('oauth_base_url_path', 'OAuth access needs a Base URL without a path', { baseUrl: base.origin });
  }
  if (!deps.auth) throw new McpPaletteError('oauth_needs_auth', 'OAuth access needs an mcp-auth configuration');
  if (endpoint.groups.length === 0) throw new McpPaletteError('oauth_needs_groups', 'OAuth access needs at least one group');
  // Discovery documents live at the origin's root (RFC 8414, RFC 9728); under a prefix they cannot.
  if (onNodeRed && runtime.pathPrefix !== '') {
    throw new McpPaletteError('oauth_needs_node_root', `OAuth access on Node-RED's server needs httpNodeRoot /, not ${runtime.pathPrefix}`, { root: runtime.pathPrefix });
  }
  if (onNodeRed && deps.nodeRedAuth) {
    throw new McpPaletteError('oauth_behind_node_auth', "OAuth access cannot be served behind Node-RED's httpNodeAuth: both use the Authorization header");
  }

  const issuer = base.origin;
  const protection = await deps.authRegistry.protect(deps.auth, site, issuer, {
    path: endpoint.path,
    resource: `${issuer}${endpoint.path}`,
    groups: endpoint.groups,
    serverName: endpoint.serverName,
  }, deps.audit, runtime.trustedProxies);
  return { policy: protection.access, release: () => protection.release() };
}
