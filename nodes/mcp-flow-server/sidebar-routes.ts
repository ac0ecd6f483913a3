import type { Node, NodeAPI } from 'node-red';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';
import { endpointUrl } from '../../lib/config/runtime-config.js';
import { DEFAULTS } from '../../lib/core/defaults.js';
import { McpPaletteError, catalogKey, describeError } from '../../lib/core/errors.js';
import { CLAUDE_CODE_CLIENT_DOCUMENT, CODEX_CLIENT_DOCUMENT } from '../../lib/editor/client-commands.js';
import { contentAccess, toolAccess } from '../../lib/editor/content-access.js';
import { endpointDirectory, type DirectoryEntry, type EndpointStateName } from '../../lib/editor/endpoint-directory.js';
import { hasPermission } from '../../lib/editor/permissions.js';
import { toolListVersion } from '../../lib/editor/tool-list-version.js';
import { recentCalls } from '../../lib/telemetry/recent-calls.js';
import { editorCaller, parseTryItRequest, runTryIt } from '../../lib/editor/try-it.js';
import type { EndpointController } from '../../lib/mcp/endpoint-controller.js';
import type { McpAuthNode } from '../mcp-auth/mcp-auth.js';
import type { McpRuntimeNode } from '../mcp-runtime/mcp-runtime.js';

interface SidebarEntryOptions {
  readonly node: Node & { z?: string };
  readonly config: { serverName?: string; path?: string; access?: string; groups?: string };
  readonly controller: EndpointController | undefined;
  readonly runtime: () => McpRuntimeNode | null;
  readonly auth: () => McpAuthNode | null;
  readonly lastError: () => { message: string; at: number } | undefined;
}

/** The directory entry of one mcp-flow-server: its facts read fresh on every sidebar request. */
export function sidebarEntry(options: SidebarEntryOptions): DirectoryEntry {
  const { node, config, controller } = options;
  let settings: ReturnType<typeof parseFlowServerConfig> | undefined;
  try {
    settings = controller?.settings ?? parseFlowServerConfig(config as Record<string, unknown>);
  } catch {
    settings = undefined;
  }
  const access = settings ? { access: settings.access, groups: settings.groups } : undefined;
  return {
    id: node.id,
    access,
    live: () => controller?.liveEndpoint,
    facts: () => {
      const state = controller?.state ?? { state: 'failed' as const };
      const runtime = options.runtime();
      const authConfiguration = settings?.access === 'oauth' ? options.auth()?.configuration : undefined;
      const path = settings?.path ?? String(config.path ?? '');
      const accepts = authConfiguration?.acceptsClientDocument;
      const live = state.state === 'serving' ? controller?.liveEndpoint : undefined;
      return {
        id: node.id,
        flow: node.z,
        name: settings?.serverName ?? String(config.serverName ?? ''),
        path,
        url: runtime?.settings && settings ? endpointUrl(runtime.settings, settings.path) : undefined,
        access: settings?.access ?? (config.access === 'oauth' ? 'oauth' : 'local'),
        groups: settings?.groups ?? [],
        authSlug: authConfiguration?.slug,
        clients: accepts
          ? { claudeDocument: accepts(CLAUDE_CODE_CLIENT_DOCUMENT), codexDocument: accepts(CODEX_CLIENT_DOCUMENT), registration: authConfiguration.registration.enabled }
          : undefined,
        state: state.state as EndpointStateName,
        counts: state.state === 'serving' ? { tools: state.tools, resources: state.resources, prompts: state.prompts } : { tools: 0, resources: 0, prompts: 0 },
        toolsVersion: live ? toolListVersion(live.toolListing) : undefined,
        lastError: options.lastError(),
        recentCalls: recentCalls.of(node.id),
      };
    },
  };
}

/** What Node-RED's adminAuth leaves on a request: the user (absent without adminAuth) and the token's scope. */
interface AdminRequest {
  user?: unknown;
  authInfo?: { scope?: unknown };
}

/**
 * The admin routes behind the editor's MCP sidebar, on Node-RED's own admin app and guarded by its
 * adminAuth: reading the list needs `mcp-flow-server.read`, running a tool `mcp-flow-server.write`
 * (the permission to edit the endpoint node itself).
 */
export function registerSidebarRoutes(RED: NodeAPI): void {
  const t = (key: string, params: Record<string, string | number> = {}) => RED._(`mcp-flow-server.sidebar.errors.${key}`, params);
  const refuse = (res: { status(code: number): { json(body: unknown): void } }, status: number, code: string, params: Record<string, string | number> = {}) =>
    res.status(status).json({ error: code, message: t(catalogKey(code), params) });
  // Node-RED signs the request in (401 without a valid session or token); the permission is checked
  // here so a signed-in user without it gets 403. Without adminAuth there is no user and no limit.
  const signedIn = (req: AdminRequest) => req.user !== undefined && req.user !== null;
  const needs = (permission: string) => [
    RED.auth.needsPermission(''),
    (req: AdminRequest, res: Parameters<typeof refuse>[0], next: () => void) => {
      if (signedIn(req) && !hasPermission(req.authInfo?.scope, permission)) {
        return refuse(res, 403, 'permission_denied', { permission });
      }
      next();
    },
  ];

  // `mayRun` tells the editor up front whether Try it's POST would pass the write check below, so a
  // read-only user sees why Run is off instead of learning it from a 403.
  RED.httpAdmin.get('/mcp-sidebar/endpoints', ...needs('mcp-flow-server.read'), (req, res) => {
    const admin = req as AdminRequest;
    const mayRun = !signedIn(admin) || hasPermission(admin.authInfo?.scope, 'mcp-flow-server.write');
    res.json({ endpoints: endpointDirectory.list(), recentCallsKept: DEFAULTS.recentCallsPerEndpoint, mayRun });
  });

  RED.httpAdmin.get('/mcp-sidebar/endpoints/:id/tools', ...needs('mcp-flow-server.read'), (req, res) => {
    const entry = endpointDirectory.find(String(req.params['id'] ?? ''));
    if (!entry) return refuse(res, 404, 'try_unknown_endpoint');
    const live = entry.live();
    if (!live) return refuse(res, 409, 'try_not_serving');
    // Beside the listing (not in it): which tools only some groups, or some scopes, may use.
    res.json({ ...live.toolListing, ...toolAccess(live.toolListing.tools, (name) => live.toolNamed(name)) });
  });

  // Resources, templates and prompts with who may use each (a client lists only what it may use).
  RED.httpAdmin.get('/mcp-sidebar/endpoints/:id/content', ...needs('mcp-flow-server.read'), (req, res) => {
    const entry = endpointDirectory.find(String(req.params['id'] ?? ''));
    if (!entry) return refuse(res, 404, 'try_unknown_endpoint');
    const live = entry.live();
    if (!live) return refuse(res, 409, 'try_not_serving');
    res.json({ items: contentAccess(live.content) });
  });

  RED.httpAdmin.post('/mcp-sidebar/endpoints/:id/try', ...needs('mcp-flow-server.write'), (req, res) => {
    const entry = endpointDirectory.find(String(req.params['id'] ?? ''));
    if (!entry) return refuse(res, 404, 'try_unknown_endpoint');
    const live = entry.live();
    if (!live || !entry.access) return refuse(res, 409, 'try_not_serving');
    const user = (req as { user?: { username?: unknown } }).user;
    let request;
    let caller;
    try {
      request = parseTryItRequest(req.body);
      caller = editorCaller(entry.access, typeof user?.username === 'string' ? user.username : null, request.confirmGroups);
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      return refuse(res, error.code === 'try_groups_confirmation' ? 403 : 400, error.code, { ...error.params });
    }
    // The editor closing the request (or the sidebar's own limit) ends the call as a client hang-up would.
    const hangUp = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) hangUp.abort();
    });
    const signal = AbortSignal.any([hangUp.signal, AbortSignal.timeout(DEFAULTS.tryItTimeoutSeconds * 1000)]);
    runTryIt(live, request, caller, signal).then(
      (outcome) => res.json(outcome),
      (error: unknown) => {
        RED.log.warn(t('tryFailed', { reason: describeError(error) }));
        refuse(res, 500, 'try_failed', { reason: describeError(error) });
      },
    );
  });
}
