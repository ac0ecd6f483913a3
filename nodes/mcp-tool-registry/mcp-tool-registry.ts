import type { Node, NodeAPI, NodeDef } from 'node-red';
import { McpPaletteError, catalogKey } from '../../lib/core/errors.js';
import { checkSchemaText, parseToolConfig, type ToolConfig } from '../../lib/mcp/tool-definition.js';
import { describeBinding, toolRegistry } from '../../lib/mcp/tool-registry.js';

type McpToolRegistryDef = NodeDef & ToolConfig;

export default function (RED: NodeAPI) {
  function McpToolRegistry(this: Node, config: McpToolRegistryDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    try {
      const definition = parseToolConfig(config);
      toolRegistry.register(node.id, definition);
      const binding = definition.binding.shared ? RED._('mcp-tool-registry.status.shared') : describeBinding(definition.binding);
      node.status({ fill: 'green', shape: 'dot', text: RED._('mcp-tool-registry.status.ready', { tool: definition.name, binding }) });
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      const reason = RED._(`mcp-tool-registry.errors.${catalogKey(error.code)}`, { ...error.params });
      node.status({ fill: 'red', shape: 'ring', text: RED._('mcp-tool-registry.status.invalid', { reason }) });
      node.error(reason);
    }
    node.on('close', (_removed: boolean, done: () => void) => {
      toolRegistry.unregister(node.id);
      done();
    });
  }
  RED.nodes.registerType('mcp-tool-registry', McpToolRegistry);

  // The editor's inline check: the same parser the runtime uses, so "valid" here means it will start.
  RED.httpAdmin.post('/mcp-tool-registry/validate-schema', RED.auth.needsPermission('mcp-tool-registry.write'), (req, res) => {
    const body = (req.body ?? {}) as { schema?: unknown; kind?: unknown };
    const kind = body.kind === 'output' ? 'output' : 'input';
    if (typeof body.schema !== 'string' || body.schema.length > 256 * 1024) {
      res.status(400).json({ valid: false, errors: ['schema must be a string of at most 256 KiB'] });
      return;
    }
    const errors = checkSchemaText(body.schema, kind);
    res.json({ valid: errors.length === 0, errors });
  });
}
