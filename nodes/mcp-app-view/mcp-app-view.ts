import type { NodeAPI } from 'node-red';
import type { AppViewConfig } from '../../lib/mcp/app-ui.js';
import { parseAppViewConfig } from '../../lib/mcp/content/app-view.js';
import { contentRegistry } from '../../lib/mcp/content/content-registry.js';
import type { ResourceDefinition } from '../../lib/mcp/content/resource-definition.js';
import { registerDeclarationNode } from '../declaration-node.js';

// An MCP Apps view is a resource (a ui:// URI of HTML): it is kept and served with the resources.
export default function (RED: NodeAPI) {
  registerDeclarationNode<AppViewConfig, ResourceDefinition>(RED, 'mcp-app-view', {
    parse: parseAppViewConfig,
    registry: contentRegistry.resources,
    names: (definition) => ({ uri: definition.uri }),
  });
}
