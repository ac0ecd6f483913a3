import type { Node, NodeAPI, NodeDef } from 'node-red';
import { McpPaletteError, catalogKey } from '../../lib/core/errors.js';
import { contentRegistry } from '../../lib/mcp/content/content-registry.js';
import { parseResourceConfig, type ResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { describeBinding } from '../../lib/mcp/tool-registry.js';

type McpResourceDef = NodeDef & ResourceConfig;

export default function (RED: NodeAPI) {
  function McpResource(this: Node, config: McpResourceDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, params: Record<string, string | number> = {}) => RED._(`mcp-resource.${key}`, params);
    try {
      const definition = parseResourceConfig(config);
      contentRegistry.registerResource(node.id, definition);
      const binding = definition.binding.shared ? t('status.shared') : describeBinding(definition.binding);
      node.status({ fill: 'green', shape: 'dot', text: t('status.ready', { uri: definition.uri, binding }) });
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      // Declared nowhere: the endpoint keeps serving everything else.
      const reason = t(`errors.${catalogKey(error.code)}`, { ...error.params });
      node.status({ fill: 'red', shape: 'ring', text: t('status.invalid', { reason }) });
      node.error(reason);
    }
    node.on('close', (_removed: boolean, done: () => void) => {
      contentRegistry.unregister(node.id);
      done();
    });
  }
  RED.nodes.registerType('mcp-resource', McpResource);
}
