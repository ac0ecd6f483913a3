import type { NodeAPI } from 'node-red';
import { checkSchemaText, parseToolConfig, type ToolConfig, type ToolDefinition } from '../../lib/mcp/tool-definition.js';
import { toolRegistry } from '../../lib/mcp/tool-registry.js';
import { registerDeclarationNode } from '../declaration-node.js';
import { sayIssues } from './schema-sentences.js';

export default function (RED: NodeAPI) {
  registerDeclarationNode<ToolConfig, ToolDefinition>(RED, 'mcp-tool-registry', {
    parse: parseToolConfig,
    registry: toolRegistry,
    names: (definition) => ({ tool: definition.name }),
    sayIssues: (issues) => sayIssues(issues, (key, params) => RED._(`mcp-tool-registry.${key}`, params)),
  });

  // The editor's inline check: the same parser the runtime uses, so "valid" here means it will start.
  // The issues are keys, not text: the editor says them in its own language, which need not be the runtime's.
  RED.httpAdmin.post('/mcp-tool-registry/validate-schema', RED.auth.needsPermission('mcp-tool-registry.write'), (req, res) => {
    const body = (req.body ?? {}) as { schema?: unknown; kind?: unknown };
    const kind = body.kind === 'output' ? 'output' : 'input';
    if (typeof body.schema !== 'string' || body.schema.length > 256 * 1024) {
      res.status(400).json({ valid: false, issues: [{ key: 'tooLarge', params: {} }] });
      return;
    }
    const issues = checkSchemaText(body.schema, kind);
    res.json({ valid: issues.length === 0, issues });
  });
}
