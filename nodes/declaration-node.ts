import type { Node, NodeAPI, NodeDef } from 'node-red';
import { McpPaletteError, catalogKey } from '../lib/core/errors.js';
import { isSchemaRefusal, type SchemaIssue } from '../lib/mcp/schema-issues.js';

/** What one declaration node type (tool, resource, prompt) does with its editor config. */
export interface Declaration<Config> {
  /** Parses the config and registers it under the node's id; returns the `status.ready` parameters. */
  readonly register: (id: string, config: Config) => Record<string, string>;
  readonly unregister: (id: string) => void;
  /** For types with schemas: a refused schema's issues as sentences, instead of the validator's lines. */
  readonly sayIssues?: (issues: readonly SchemaIssue[]) => string;
}

/**
 * The shared life of the nodes that declare something an endpoint offers (no wires): register on
 * start, show what was declared or why it was refused, unregister on close. A refused declaration is
 * served nowhere, and the endpoint keeps serving everything else.
 */
export function registerDeclarationNode<Config>(RED: NodeAPI, type: string, declaration: Declaration<Config>): void {
  function DeclarationNode(this: Node, config: NodeDef & Config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, params: Record<string, string | number> = {}) => RED._(`${type}.${key}`, params);
    try {
      node.status({ fill: 'green', shape: 'dot', text: t('status.ready', declaration.register(node.id, config)) });
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      const params = isSchemaRefusal(error) && declaration.sayIssues ? { reason: declaration.sayIssues(error.issues) } : { ...error.params };
      const reason = t(`errors.${catalogKey(error.code)}`, params);
      node.status({ fill: 'red', shape: 'ring', text: t('status.invalid', { reason }) });
      node.error(reason);
    }
    node.on('close', (_removed: boolean, done: () => void) => {
      declaration.unregister(node.id);
      done();
    });
  }
  RED.nodes.registerType(type, DeclarationNode);
}
