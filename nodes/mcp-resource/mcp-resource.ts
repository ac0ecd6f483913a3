import type { NodeAPI } from 'node-red';
import { contentRegistry } from '../../lib/mcp/content/content-registry.js';
import { parseResourceConfig, type ResourceConfig, type ResourceDefinition } from '../../lib/mcp/content/resource-definition.js';
import { registerDeclarationNode } from '../declaration-node.js';

export default function (RED: NodeAPI) {
  registerDeclarationNode<ResourceConfig, ResourceDefinition>(RED, 'mcp-resource', {
    parse: parseResourceConfig,
    registry: contentRegistry.resources,
    names: (definition) => ({ uri: definition.uri }),
  });
}
