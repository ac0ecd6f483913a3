import type { Node, NodeAPI, NodeDef } from 'node-red';
import { parseRuntimeConfig, type RuntimeSettings } from '../../lib/config/runtime-config.js';
import { McpPaletteError, catalogKey } from '../../lib/core/errors.js';

interface McpRuntimeDef extends NodeDef {
  port?: string | number;
  host?: string;
  baseUrl?: string;
}

/** Endpoints read these; the listener itself lives in lib's registry, opened by the first endpoint. */
export interface McpRuntimeNode extends Node {
  settings?: RuntimeSettings;
  configError?: string;
}

export default function (RED: NodeAPI) {
  function McpRuntime(this: McpRuntimeNode, config: McpRuntimeDef) {
    RED.nodes.createNode(this, config);
    try {
      this.settings = parseRuntimeConfig(config as unknown as Record<string, unknown>);
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      this.configError = RED._(`mcp-runtime.errors.${catalogKey(error.code)}`, { ...error.params });
      this.error(this.configError);
    }
  }
  RED.nodes.registerType('mcp-runtime', McpRuntime);
}
