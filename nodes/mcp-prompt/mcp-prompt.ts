import type { NodeAPI } from 'node-red';
import { contentRegistry } from '../../lib/mcp/content/content-registry.js';
import { parsePromptConfig, type PromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { describeBinding } from '../../lib/mcp/tool-registry.js';
import { registerDeclarationNode } from '../declaration-node.js';

export default function (RED: NodeAPI) {
  registerDeclarationNode<PromptConfig>(RED, 'mcp-prompt', {
    register: (id, config) => {
      const definition = parsePromptConfig(config);
      contentRegistry.registerPrompt(id, definition);
      const binding = definition.binding.shared ? RED._('mcp-prompt.status.shared') : describeBinding(definition.binding);
      return { prompt: definition.name, binding };
    },
    unregister: (id) => contentRegistry.unregister(id),
  });
}
