import type { Node, NodeAPI, NodeDef } from 'node-red';
import { loggerOf } from '../../lib/core/logger.js';
import { createStore, parseStorageConfig, type StorageCredentials } from '../../lib/storage/storage-config.js';
import type { Store } from '../../lib/storage/store.js';
import { registerConfigNode, type RefusableConfigNode } from '../config-node.js';

interface McpRedisDef extends NodeDef {
  mode?: string;
  keyPrefix?: string;
  urlEnv?: string;
  passwordEnv?: string;
}

/** Auth configurations read `store`; the connection opens at deploy and closes with the node. */
export interface McpRedisNode extends Node<StorageCredentials>, RefusableConfigNode {
  store?: Store;
}

export default function (RED: NodeAPI) {
  registerConfigNode<McpRedisNode, McpRedisDef>(RED, 'mcp-redis', (node, config) => {
    node.on('close', (_removed: boolean, done: () => void) => {
      const store = node.store;
      node.store = undefined;
      if (!store) return done();
      store.close().then(() => done(), () => done());
    });
    const settings = parseStorageConfig(config as unknown as Record<string, unknown>, node.credentials);
    node.store = createStore(settings, loggerOf(node));
  }, { url: { type: 'password' }, password: { type: 'password' }, sentinelPassword: { type: 'password' } });
}
