import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { isPlainObject } from '../core/is-plain-object.js';

// The SDK's 2026-07-28 encoding of a handler's result, for the requests the endpoint answers without
// the SDK (its codec's `encodeResult` is not exported). The differential tests
// (direct-tool-calls.test.ts, direct-content.test.ts) hold both paths to the same bytes.

export interface ServerIdentity {
  readonly name: string;
  readonly version: string;
}

/** The SDK's default cache fields of a complete `resources/read` result: not to be cached, and not shared. */
const DEFAULT_TTL_MS = 0;
const DEFAULT_CACHE_SCOPE = 'private';

/**
 * A `resources/read` or `prompts/get` result as the SDK's encoder writes it: `resultType: "complete"`
 * unless the result names its own (a flow's questions are `input_required`), the cache fields of a
 * complete read (its own when valid, else "not cached, private"), and the server's identity in `_meta`.
 */
export function encodeModernContentResult(method: 'resources/read' | 'prompts/get', result: Record<string, unknown>, serverInfo: ServerIdentity): Record<string, unknown> {
  let encoded = result['resultType'] === undefined ? { ...result, resultType: 'complete' } : result;
  if (method === 'resources/read' && encoded['resultType'] === 'complete') {
    const ttlMs = encoded['ttlMs'];
    const cacheScope = encoded['cacheScope'];
    encoded = {
      ...encoded,
      ttlMs: typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs >= 0 ? ttlMs : DEFAULT_TTL_MS,
      cacheScope: cacheScope === 'public' || cacheScope === 'private' ? cacheScope : DEFAULT_CACHE_SCOPE,
    };
  }
  return withServerInfo(encoded, serverInfo);
}

/**
 * The server's identity in a result's `_meta` (servers should say who they are on every 2026-07-28
 * response), unless the result names one already or has a `_meta` that is not an object.
 */
export function withServerInfo(result: Record<string, unknown>, serverInfo: ServerIdentity): Record<string, unknown> {
  const meta = result['_meta'];
  if (meta === undefined) return { ...result, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return result;
  return { ...result, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}
