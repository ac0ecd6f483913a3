import { blankToUndefined, envNameFrom, readEnv } from '../config/env-secrets.js';
import { McpPaletteError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { MemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import { STORAGE_DEFAULTS } from './storage-defaults.js';
import { KEY_PREFIX_PATTERN } from './store-arguments.js';
import type { Store } from './store.js';

/**
 * A validated mcp-redis node. `url` and `password` are secrets: pass them to createStore only,
 * never to a log line, a status text or an error.
 */
export type StorageSettings =
  | { readonly mode: 'memory'; readonly keyPrefix: string }
  | { readonly mode: 'redis'; readonly keyPrefix: string; readonly url: string; readonly password: string | undefined };

export interface StorageCredentials {
  readonly url?: unknown;
  readonly password?: unknown;
}

const REDIS_SCHEME = /^rediss?:\/\//i;

export function parseStorageConfig(
  config: Record<string, unknown>,
  credentials: StorageCredentials | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): StorageSettings {
  const mode = blankToUndefined(config.mode) ?? 'memory';
  if (mode !== 'memory' && mode !== 'redis') throw new McpPaletteError('invalid_storage_mode', 'storage mode must be memory or redis', { field: 'mode' });
  const keyPrefix = blankToUndefined(config.keyPrefix) ?? STORAGE_DEFAULTS.keyPrefix;
  if (!KEY_PREFIX_PATTERN.test(keyPrefix)) throw new McpPaletteError('invalid_key_prefix', 'key prefix must match [A-Za-z0-9_.-]{1,64}', { field: 'keyPrefix' });
  // Checked in memory mode too: a bad name is a config error whether or not it is read today.
  const urlEnv = envNameFrom(config.urlEnv);
  const passwordEnv = envNameFrom(config.passwordEnv);
  if (mode === 'memory') return Object.freeze({ mode, keyPrefix });

  const url = urlEnv ? readEnv(env, urlEnv) : blankToUndefined(credentials?.url);
  if (url === undefined) throw new McpPaletteError('missing_redis_url', 'redis mode needs a Redis URL');
  if (!isRedisUrl(url)) throw new McpPaletteError('invalid_redis_url', 'the Redis URL must start with redis:// or rediss://');
  const password = passwordEnv ? readEnv(env, passwordEnv) : blankToUndefined(credentials?.password);
  return Object.freeze({ mode, keyPrefix, url, password });
}

let memoryWarningGiven = false;

/** Opens the configured store; a Redis store starts connecting at once (watch `onState`). */
export function createStore(settings: StorageSettings, logger: Logger): Store {
  if (settings.mode === 'redis') {
    return createRedisStore({ url: settings.url, password: settings.password, keyPrefix: settings.keyPrefix, logger });
  }
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
