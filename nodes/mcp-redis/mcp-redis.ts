import type { Node, NodeAPI, NodeDef } from 'node-red';
import { loggerOf } from '../../lib/core/logger.js';
import { McpPaletteError, catalogKey } from '../../lib/core/errors.js';
import { createStore, parseStorageConfig, type StorageCredentials } from '../../lib/storage/storage-config.js';
import type { Store } from '../../lib/storage/store.js';

interface McpRedisDef extends NodeDef {
  mode?: string;
  keyPrefix?: string;
  urlEnv?: string;
  passwordEnv?: string;
}

/** Auth configurations read `store`; the connection opens at deploy and closes with the node. */
export interface McpRedisNode extends Node<StorageCredentials> {
  store?: Store;
  configError?: string;
}

export default function (RED: NodeAPI) {
  function McpRedis(this: McpRedisNode, config: McpRedisDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    try {
      const settings = parseStorageConfig(config as unknown as Record<string, unknown>, node.credentials);
      node.store = createStore(settings, loggerOf(node));
    } catch (error) {
      if (!(error instanceof McpPaletteError)) throw error;
      node.configError = RED._(`mcp-redis.errors.${catalogKey(error.code)}`, { ...error.params });
      node.error(node.configError);
    }
    node.on('close', (_removed: boolean, done: () => void) => {
      const store = node.store;
      node.store = undefined;
      if (!store) return done();
      store.close().then(() => done(), () => done());
    });
  }
  RED.nodes.registerType('mcp-redis', McpRedis, {
    credentials: { url: { type: 'password' }, password: { type: 'password' }, sentinelPassword: { type: 'password' } },
  });
}
