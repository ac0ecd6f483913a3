import type { Node, NodeAPI, NodeDef } from 'node-red';
import { McpPaletteError, catalogKey } from '../lib/core/errors.js';

/** A config node whose settings were refused keeps the reason, in its catalog's words, as `configError`. */
export interface RefusableConfigNode {
  configError?: string;
}

type Credentials = Record<string, { type: 'text' | 'password' }>;

/**
 * The shared start of the palette's config nodes (runtime, storage, auth). `setup` reads the node's
 * settings and throws McpPaletteError to refuse them: the reason is logged once and kept on the node,
 * so every node that uses this config can say why it cannot start instead of failing on its own.
 */
// Node<any>: each config node has credentials of its own shape.
export function registerConfigNode<N extends Node<any> & RefusableConfigNode, D extends NodeDef>(
  RED: NodeAPI,
  type: string,
  setup: (node: N, config: D) => void,
  credentials?: Credentials,
): void {
  function ConfigNode(this: N, config: D) {
    RED.nodes.createNode(this, config);
    try {
      setup(this, config);
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      this.configError = RED._(`${type}.errors.${catalogKey(error.code)}`, { ...error.params });
      this.error(this.configError);
    }
  }
  RED.nodes.registerType(type, ConfigNode, credentials ? { credentials } : undefined);
}
