import { fileURLToPath } from 'node:url';
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { loggerOf, logWithoutStack } from '../../lib/core/logger.js';
import { rateLimitedLog } from '../../lib/core/rate-limited-log.js';
import { formatAuditLine, type AuditEvent } from '../../lib/auth/audit.js';
import type { AuthConfiguration } from '../../lib/auth/auth-configuration.js';
import { parseAuthConfig, type AuthCredentials } from '../../lib/auth/auth-settings.js';
import { createClientResolver } from '../../lib/auth/client-resolver.js';
import { parseConsentWithdrawal, withdrawConsent } from '../../lib/auth/consent/withdraw-consent.js';
import { allowsUrlHost } from '../../lib/auth/clients/host-allow-list.js';
import { isStorageUnavailable } from '../../lib/storage/store.js';
import { createRegisteredClientLookup } from '../../lib/auth/registration/registered-clients.js';
import { createUpstreamSignIn } from '../../lib/auth/upstream/upstream-sign-in.js';
import { createUpstreamRefresher } from '../../lib/auth/upstream/upstream-refresh.js';
import { OFFLINE_ACCESS } from '../../lib/auth/bridge/bridge-context.js';
import { McpPaletteError, catalogKey } from '../../lib/core/errors.js';
import { registerConfigNode, type RefusableConfigNode } from '../config-node.js';
import type { McpRedisNode } from '../mcp-redis/mcp-redis.js';
import { loadSignInPageTexts } from '../../lib/auth/pages/page-texts.js';

interface McpAuthDef extends NodeDef {
  storage?: string;
}

/** Endpoints with OAuth access read `configuration`; `configError` says why there is none. */
export interface McpAuthNode extends Node<Record<keyof AuthCredentials, unknown>>, RefusableConfigNode {
  configuration?: AuthConfiguration;
}

export default function (RED: NodeAPI) {
  // The bridge's browser pages speak the browser's language, not the runtime's: RED._ only knows the
  // latter, so the catalogs copied beside this file are read once, in every shipped language.
  const pages = loadSignInPageTexts(fileURLToPath(new URL('./locales', import.meta.url)));
  registerConfigNode<McpAuthNode, McpAuthDef>(RED, 'mcp-auth', (node, config) => {
    const logger = loggerOf(node);
    const requestLog = rateLimitedLog(logger);
    node.on('close', (_removed: boolean, done: () => void) => {
      requestLog.flush();
      done();
    });
    const settings = parseAuthConfig(config as unknown as Record<string, unknown>, node.credentials as AuthCredentials);
    const storageNode = RED.nodes.getNode(config.storage ?? '') as McpRedisNode | null;
    if (!storageNode) throw new McpPaletteError('no_storage', 'no storage selected');
    if (!storageNode.store) throw new McpPaletteError('invalid_storage', 'storage configuration is invalid', { reason: storageNode.configError ?? '' });
    // offline_access is offered, and asked of the provider, only when refresh is configured.
    const provider = settings.refresh ? { ...settings.provider, scopes: [...settings.provider.scopes, OFFLINE_ACCESS] } : settings.provider;
    node.configuration = Object.freeze({
      id: node.id,
      slug: settings.slug,
      namespace: settings.namespace,
      scopes: provider.scopes,
      scopeGrants: settings.scopeGrants,
      accessTokenTtlSeconds: settings.accessTokenTtlSeconds,
      consentPolicy: settings.consentPolicy,
      registration: settings.registration,
      store: storageNode.store,
      clients: createClientResolver(
        settings.pinnedClients,
        settings.allowList,
        createRegisteredClientLookup(storageNode.store, settings.namespace, settings.registration.unusedSeconds, { logger }),
        requestLog,
      ),
      acceptsClientDocument: (url: string) => settings.pinnedClients.has(url) || allowsUrlHost(settings.allowList, url),
      createUpstream: (redirectUri: string) => createUpstreamSignIn(provider, redirectUri),
      pages,
      ...(settings.refresh
        ? { refresh: { key: settings.refresh.key, lifetimes: settings.refresh.lifetimes, upstream: createUpstreamRefresher(settings.provider) } }
        : {}),
      audit: (event: AuditEvent) => logWithoutStack(node, formatAuditLine(event)),
      logger,
      requestLog,
    });
  }, {
    oidcClientSecret: { type: 'password' },
    entraClientSecret: { type: 'password' },
    oidcRefreshKey: { type: 'password' },
    entraRefreshKey: { type: 'password' },
  });

  // Withdrawing a user's remembered consent is the admin's (or, through the admin, the user's)
  // decision; token revocation by the client never does it. Guarded like editing the node itself.
  RED.httpAdmin.post('/mcp-auth/:id/consent/withdraw', RED.auth.needsPermission('mcp-auth.write'), (req, res) => {
    const node = RED.nodes.getNode(String(req.params.id ?? '')) as McpAuthNode | null;
    const configuration = node?.type === 'mcp-auth' ? node.configuration : undefined;
    if (!node || !configuration) {
      res.status(404).json({ error: 'unknown_auth', message: RED._('mcp-auth.errors.unknownAuth') });
      return;
    }
    let withdrawal;
    try {
      withdrawal = parseConsentWithdrawal(req.body);
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      res.status(400).json({ error: error.code, message: RED._(`mcp-auth.errors.${catalogKey(error.code)}`, { ...error.params }) });
      return;
    }
    withdrawConsent(configuration.store, configuration.namespace, withdrawal, configuration.audit).then(
      () => res.json({ withdrawn: true }),
      (error: unknown) => {
        if (!isStorageUnavailable(error)) node.error(RED._('mcp-auth.errors.withdrawFailed'));
        res.status(503).json({ error: 'storage_unavailable', message: RED._('mcp-auth.errors.storageUnavailable') });
      },
    );
  });
}
