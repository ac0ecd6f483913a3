import type { Node, NodeAPI, NodeDef } from 'node-red';
import { parseAdminSettings, parseRuntimeConfig, type AdminSettings, type NodeRedServer, type RuntimeSettings } from '../../lib/config/runtime-config.js';
import { hostRouteTable, type HostRouteTable } from '../../lib/http/host-routes.js';
import { listenerRegistry } from '../../lib/http/listener-registry.js';
import type { RouteSite } from '../../lib/http/route-site.js';
import { TelemetryBus } from '../../lib/telemetry/telemetry-bus.js';
import { registerConfigNode, type RefusableConfigNode } from '../config-node.js';
import { nodeRedHttpServer, type ExpressLikeApp } from './node-red-http.js';

interface McpRuntimeDef extends NodeDef {
  server?: string;
  port?: string | number;
  host?: string;
  baseUrl?: string;
  trustedProxies?: string;
  adminPort?: string | number;
  adminPath?: string;
}

/** Endpoints read these; the listener itself lives in lib's registry, opened by the first endpoint. */
export interface McpRuntimeNode extends Node<{ adminToken?: unknown }>, RefusableConfigNode {
  settings?: RuntimeSettings;
  admin?: AdminSettings;
  /** Where this runtime's endpoints and OAuth routes are mounted (own listener or Node-RED's server). */
  site?: RouteSite;
  /** True when Node-RED's httpNodeAuth guards its HTTP node routes (one-port mode only). */
  nodeRedAuth?: boolean;
  /** Every endpoint on this runtime publishes one event per tools/call; one metrics node listens. */
  telemetry?: TelemetryBus;
}

interface NodeRedHttpSettings {
  httpNodeRoot?: unknown;
  httpAdminRoot?: unknown;
  httpNodeAuth?: unknown;
  uiPort?: unknown;
  uiHost?: unknown;
}

export default function (RED: NodeAPI) {
  const httpSettings = () => RED.settings as unknown as NodeRedHttpSettings;
  const nodeRedServer = (): NodeRedServer => {
    const { httpNodeRoot, uiPort, uiHost } = httpSettings();
    return {
      // Node-RED's launcher normalises httpNodeRoot; an embedding application may leave it unset ("/").
      root: httpNodeRoot === false ? false : typeof httpNodeRoot === 'string' && httpNodeRoot !== '' ? httpNodeRoot : '/',
      port: typeof uiPort === 'number' ? uiPort : typeof uiPort === 'string' && /^\d+$/.test(uiPort) ? Number(uiPort) : undefined,
      host: typeof uiHost === 'string' ? uiHost : undefined,
    };
  };
  // One table (and one dispatcher on RED.httpNode) for the life of this Node-RED, however many
  // runtimes use it and however often flows are redeployed.
  let table: HostRouteTable | undefined;
  const nodeRedSite = (): HostRouteTable => {
    const app = RED.httpNode as unknown as ExpressLikeApp;
    const root = String(nodeRedServer().root);
    const adminRoot = httpSettings().httpAdminRoot;
    // Mounted before httpNode, the editor answers its own paths first when it shares the root.
    const editor = typeof adminRoot === 'string' ? { app: RED.httpAdmin as unknown as ExpressLikeApp, root: adminRoot } : undefined;
    table ??= hostRouteTable(app, nodeRedHttpServer(app, root, () => RED.log.info(RED._('mcp-runtime.log.dispatcherInstalled', { root })), editor));
    return table;
  };

  registerConfigNode<McpRuntimeNode, McpRuntimeDef>(RED, 'mcp-runtime', (node, config) => {
    node.telemetry = new TelemetryBus();
    // Both parsed before either is kept: a refused node has no settings at all.
    const settings = parseRuntimeConfig(config as unknown as Record<string, unknown>, nodeRedServer());
    node.admin = parseAdminSettings(config as unknown as Record<string, unknown>, node.credentials);
    node.settings = settings;
    if (settings.server === 'own') {
      node.site = listenerRegistry.site({ port: settings.port, host: settings.host });
      return;
    }
    const site = nodeRedSite();
    node.site = site;
    node.nodeRedAuth = Boolean(httpSettings().httpNodeAuth);
    // A deploy may add an http in route on a path served here: the MCP route gives way and says so.
    const recheck = () => site.recheck();
    RED.events.on('flows:started', recheck);
    node.on('close', (_removed: boolean, done: () => void) => {
      RED.events.removeListener('flows:started', recheck);
      done();
    });
  }, { adminToken: { type: 'password' } });
}
