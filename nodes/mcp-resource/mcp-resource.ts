import type { NodeAPI } from 'node-red';
import { contentRegistry } from '../../lib/mcp/content/content-registry.js';
import { parseResourceConfig, type ResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { describeBinding } from '../../lib/mcp/tool-registry.js';
import { registerDeclarationNode } from '../declaration-node.js';

export default function (RED: NodeAPI) {
  registerDeclarationNode<ResourceConfig>(RED, 'mcp-resource', {
    register: (id, config) => {
      const definition = parseResourceConfig(config);
      contentRegistry.registerResource(id, definition);
      const binding = definition.binding.shared ? RED._('mcp-resource.status.shared') : describeBinding(definition.binding);
      return { uri: definition.uri, binding };
    },
    unregister: (id) => contentRegistry.unregister(id),
  });
}
