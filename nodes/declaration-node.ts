import type { Node, NodeAPI, NodeDef } from 'node-red';
import { McpPaletteError, catalogKey } from '../lib/core/errors.js';
import { isSchemaRefusal, type SchemaIssue } from '../lib/mcp/schema-issues.js';
import type { ToolBinding } from '../lib/mcp/tool-definition.js';
import { describeBinding, type OwnedDeclarations } from '../lib/mcp/tool-registry.js';

/** What one declaration node type (tool, resource, prompt) does with its editor config. */
export interface Declaration<Config, Definition extends { readonly binding: ToolBinding }> {
  /** Throws McpPaletteError for a config that cannot be served. */
  readonly parse: (config: Config) => Definition;
  /** Where the definition is kept under the node's id while the node runs. */
  readonly registry: OwnedDeclarations<Definition>;
  /** The `status.ready` parameters that name what was declared; `binding` is added to them. */
  readonly names: (definition: Definition) => Record<string, string>;
  /** For types with schemas: a refused schema's issues as sentences, instead of the validator's lines. */
  readonly sayIssues?: (issues: readonly SchemaIssue[]) => string;
}

/**
 * The shared life of the nodes that declare something an endpoint offers (no wires): register on
 * start, show what was declared or why it was refused, unregister on close. A refused declaration is
 * served nowhere, and the endpoint keeps serving everything else.
 */
export function registerDeclarationNode<Config, Definition extends { readonly binding: ToolBinding }>(
  RED: NodeAPI,
  type: string,
  declaration: Declaration<Config, Definition>,
): void {
  function DeclarationNode(this: Node, config: NodeDef & Config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, params: Record<string, string | number> = {}) => RED._(`${type}.${key}`, params);
    try {
      const definition = declaration.parse(config);
      declaration.registry.register(node.id, definition);
      const binding = definition.binding.shared ? t('status.shared') : describeBinding(definition.binding);
      node.status({ fill: 'green', shape: 'dot', text: t('status.ready', { ...declaration.names(definition), binding }) });
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      const params = isSchemaRefusal(error) && declaration.sayIssues ? { reason: declaration.sayIssues(error.issues) } : { ...error.params };
      const reason = t(`errors.${catalogKey(error.code)}`, params);
      node.status({ fill: 'red', shape: 'ring', text: t('status.invalid', { reason }) });
      node.error(reason);
    }
    node.on('close', (_removed: boolean, done: () => void) => {
      declaration.registry.unregister(node.id);
      done();
    });
  }
  RED.nodes.registerType(type, DeclarationNode);
}
