import type { Node, NodeAPI, NodeDef } from 'node-red';
import { parseAdminSettings, parseRuntimeConfig, type AdminSettings, type RuntimeSettings } from '../../lib/config/runtime-config.js';
import { McpPaletteError, catalogKey } from '../../lib/core/errors.js';
import { TelemetryBus } from '../../lib/telemetry/telemetry-bus.js';

interface McpRuntimeDef extends NodeDef {
  port?: string | number;
  host?: string;
  baseUrl?: string;
  trustedProxies?: string;
  adminPort?: string | number;
  adminPath?: string;
}

/** Endpoints read these; the listener itself lives in lib's registry, opened by the first endpoint. */
export interface McpRuntimeNode extends Node<{ adminToken?: unknown }> {
  settings?: RuntimeSettings;
  admin?: AdminSettings;
  configError?: string;
  /** Every endpoint on this runtime publishes one event per tools/call; one metrics node listens. */
  telemetry?: TelemetryBus;
}

export default function (RED: NodeAPI) {
  function McpRuntime(this: McpRuntimeNode, config: McpRuntimeDef) {
    RED.nodes.createNode(this, config);
    this.telemetry = new TelemetryBus();
    try {
      this.settings = parseRuntimeConfig(config as unknown as Record<string, unknown>);
      this.admin = parseAdminSettings(config as unknown as Record<string, unknown>, this.credentials);
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      this.settings = undefined;
      this.configError = RED._(`mcp-runtime.errors.${catalogKey(error.code)}`, { ...error.params });
      this.error(this.configError);
    }
  }
  RED.nodes.registerType('mcp-runtime', McpRuntime, { credentials: { adminToken: { type: 'password' } } });
}
