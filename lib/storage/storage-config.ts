import { blankToUndefined, envNameFrom, readEnv } from '../config/env-secrets.js';
import { McpPaletteError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { MemoryStore } from './memory-store.js';
import { parseSentinelAddresses, type ClusterTarget, type SentinelAddress, type SentinelTarget } from './redis-connection.js';
import { createRedisStore } from './redis-store.js';
import { STORAGE_DEFAULTS } from './storage-defaults.js';
import { KEY_PREFIX_PATTERN } from './store-arguments.js';
import type { Store } from './store.js';

/**
 * A validated mcp-redis node. `url` and the passwords are secrets: pass them to createStore only,
 * never to a log line, a status text or an error.
 */
export type StorageSettings =
  | { readonly mode: 'memory'; readonly keyPrefix: string }
  | { readonly mode: 'redis'; readonly keyPrefix: string; readonly url: string; readonly password: string | undefined }
  | { readonly mode: 'sentinel'; readonly keyPrefix: string; readonly sentinel: SentinelTarget }
  | { readonly mode: 'cluster'; readonly keyPrefix: string; readonly cluster: ClusterTarget };

export interface StorageCredentials {
  readonly url?: unknown;
  /** The data nodes' password (one URL or Sentinel). */
  readonly password?: unknown;
  readonly sentinelPassword?: unknown;
}

const REDIS_SCHEME = /^rediss?:\/\//i;
// What `sentinel monitor <name>` accepts in practice, and nothing a log line could be fooled by.
const GROUP_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
// ACL user names: no spaces or control characters, so nothing else can hide in the field.
const USER_NAME = /^[\x21-\x7e]{1,128}$/;

export function parseStorageConfig(
  config: Record<string, unknown>,
  credentials: StorageCredentials | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): StorageSettings {
  const mode = blankToUndefined(config.mode) ?? 'memory';
  if (mode !== 'memory' && mode !== 'redis' && mode !== 'sentinel' && mode !== 'cluster') {
    throw new McpPaletteError('invalid_storage_mode', 'storage mode must be memory, redis, sentinel or cluster', { field: 'mode' });
  }
  const keyPrefix = blankToUndefined(config.keyPrefix) ?? STORAGE_DEFAULTS.keyPrefix;
  if (!KEY_PREFIX_PATTERN.test(keyPrefix)) throw new McpPaletteError('invalid_key_prefix', 'key prefix must match [A-Za-z0-9_.-]{1,64}', { field: 'keyPrefix' });
  // Checked in memory mode too: a bad name is a config error whether or not it is read today.
  const urlEnv = envNameFrom(config.urlEnv);
  const passwordEnv = envNameFrom(config.passwordEnv);
  const sentinelsEnv = envNameFrom(config.sentinelsEnv);
  const sentinelPasswordEnv = envNameFrom(config.sentinelPasswordEnv);
  const clusterNodesEnv = envNameFrom(config.clusterNodesEnv);
  if (mode === 'memory') return Object.freeze({ mode, keyPrefix });
  const readPassword = () => (passwordEnv ? readEnv(env, passwordEnv) : blankToUndefined(credentials?.password));
  if (mode === 'sentinel') {
    const password = readPassword();
    const sentinelPassword = sentinelPasswordEnv ? readEnv(env, sentinelPasswordEnv) : blankToUndefined(credentials?.sentinelPassword);
    return Object.freeze({ mode, keyPrefix, sentinel: Object.freeze(parseSentinel(config, env, sentinelsEnv, password, sentinelPassword)) });
  }
  if (mode === 'cluster') return Object.freeze({ mode, keyPrefix, cluster: Object.freeze(parseCluster(config, env, clusterNodesEnv, readPassword())) });

  const url = urlEnv ? readEnv(env, urlEnv) : blankToUndefined(credentials?.url);
  if (url === undefined) throw new McpPaletteError('missing_redis_url', 'redis mode needs a Redis URL');
  if (!isRedisUrl(url)) throw new McpPaletteError('invalid_redis_url', 'the Redis URL must start with redis:// or rediss://');
  return Object.freeze({ mode, keyPrefix, url, password: readPassword() });
}

type Env = Readonly<Record<string, string | undefined>>;

function parseSentinel(config: Record<string, unknown>, env: Env, sentinelsEnv: string | undefined, password: string | undefined, sentinelPassword: string | undefined): SentinelTarget {
  const sentinels = addressList(env, sentinelsEnv, config.sentinels, 'sentinels', 'missing_sentinels', 'invalid_sentinels');
  const name = blankToUndefined(config.sentinelName);
  if (name === undefined) throw new McpPaletteError('missing_sentinel_name', 'sentinel mode needs the group (master) name', { field: 'sentinelName' });
  if (!GROUP_NAME.test(name)) throw new McpPaletteError('invalid_sentinel_name', 'the group name must match [A-Za-z0-9_.-]{1,64}', { field: 'sentinelName' });
  const username = userName(config.username, 'username');
  const sentinelUsername = userName(config.sentinelUsername, 'sentinelUsername');
  return { sentinels, name, username, password, sentinelUsername, sentinelPassword, tls: isOn(config.tls) };
}

function parseCluster(config: Record<string, unknown>, env: Env, nodesEnv: string | undefined, password: string | undefined): ClusterTarget {
  const nodes = addressList(env, nodesEnv, config.clusterNodes, 'clusterNodes', 'missing_cluster_nodes', 'invalid_cluster_nodes');
  return { nodes, username: userName(config.username, 'username'), password, tls: isOn(config.tls) };
}

/** The sentinels' or the cluster's seed nodes' host:port list, from its env variable or its field. */
function addressList(env: Env, envName: string | undefined, value: unknown, field: string, missing: string, invalid: string): SentinelAddress[] {
  const listed = envName ? readEnv(env, envName) : blankToUndefined(value);
  if (listed === undefined) throw new McpPaletteError(missing, `the ${field} field needs host:port addresses`, { field });
  const addresses = parseSentinelAddresses(listed);
  // The list itself is not secret, but it may hold a password pasted by mistake: never echo it.
  if (!addresses) throw new McpPaletteError(invalid, `${field} must be host:port entries separated by commas`, { field });
  return addresses;
}

function isOn(value: unknown): boolean {
  return value === true || value === 'true';
}

function userName(value: unknown, field: string): string | undefined {
  const name = blankToUndefined(value);
  if (name !== undefined && !USER_NAME.test(name)) throw new McpPaletteError('invalid_redis_user', 'a Redis user name must be printable characters without spaces', { field });
  return name;
}

let memoryWarningGiven = false;

/** Opens the configured store; a Redis store starts connecting at once (watch `onState`). */
export function createStore(settings: StorageSettings, logger: Logger): Store {
  if (settings.mode === 'redis') {
    return createRedisStore({ url: settings.url, password: settings.password, keyPrefix: settings.keyPrefix, logger });
  }
  if (settings.mode === 'sentinel') return createRedisStore({ sentinel: settings.sentinel, keyPrefix: settings.keyPrefix, logger });
  if (settings.mode === 'cluster') return createRedisStore({ cluster: settings.cluster, keyPrefix: settings.keyPrefix, logger });
  // Once per process: every mcp-redis node in memory mode would otherwise repeat it on each deploy.
  if (!memoryWarningGiven) {
    memoryWarningGiven = true;
    logger.warn('memory storage is for development only: sign-ins and tokens are lost on restart and not shared between Node-RED instances; use Redis in production');
  }
  return new MemoryStore({ keyPrefix: settings.keyPrefix });
}

function isRedisUrl(value: string): boolean {
  if (!REDIS_SCHEME.test(value)) return false;
  try {
    const url = new URL(value);
    return url.hostname !== '';
  } catch {
    return false;
  }
}
