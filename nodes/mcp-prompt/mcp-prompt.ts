import type { Node, NodeAPI, NodeDef } from 'node-red';
import { McpPaletteError, catalogKey } from '../../lib/core/errors.js';
import { contentRegistry } from '../../lib/mcp/content/content-registry.js';
import { parsePromptConfig, type PromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { describeBinding } from '../../lib/mcp/tool-registry.js';

type McpPromptDef = NodeDef & PromptConfig;

export default function (RED: NodeAPI) {
  function McpPrompt(this: Node, config: McpPromptDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, params: Record<string, string | number> = {}) => RED._(`mcp-prompt.${key}`, params);
    try {
      const definition = parsePromptConfig(config);
      contentRegistry.registerPrompt(node.id, definition);
      const binding = definition.binding.shared ? t('status.shared') : describeBinding(definition.binding);
      node.status({ fill: 'green', shape: 'dot', text: t('status.ready', { prompt: definition.name, binding }) });
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      const reason = t(`errors.${catalogKey(error.code)}`, { ...error.params });
      node.status({ fill: 'red', shape: 'ring', text: t('status.invalid', { reason }) });
      node.error(reason);
    }
    node.on('close', (_removed: boolean, done: () => void) => {
      contentRegistry.unregister(node.id);
      done();
    });
  }
  RED.nodes.registerType('mcp-prompt', McpPrompt);
}
