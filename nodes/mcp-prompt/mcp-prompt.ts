import type { NodeAPI } from 'node-red';
import { contentRegistry } from '../../lib/mcp/content/content-registry.js';
import { parsePromptConfig, type PromptConfig, type PromptDefinition } from '../../lib/mcp/content/prompt-definition.js';
import { registerDeclarationNode } from '../declaration-node.js';

export default function (RED: NodeAPI) {
  registerDeclarationNode<PromptConfig, PromptDefinition>(RED, 'mcp-prompt', {
    parse: parsePromptConfig,
    registry: contentRegistry.prompts,
    names: (definition) => ({ prompt: definition.name }),
  });
}
