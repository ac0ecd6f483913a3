import type { IncomingMessage } from 'node:http';
import { isPlainObject } from '../core/is-plain-object.js';
import { plainLegacyRevision, plainRequestId } from './plain-requests.js';

/**
 * The JSON-RPC id of a plain 2025-era `tools/list` for the first page — the request every client
 * repeats and that never changes between deploys — or undefined for anything else. Only a request the
 * SDK's transport would accept as it is qualifies (a 2025 revision header, JSON in, both media types
 * accepted, no params but an empty object); every other shape takes the SDK's path and gets its
 * answer or its error from there. The answer is written from the list's JSON text, built once per
 * deploy (`writeJsonRpcResult`), without validating, encoding and framing the same constant result
 * on every request.
 */
export function plainLegacyToolsListId(req: IncomingMessage, body: unknown): string | number | undefined {
  const id = plainRequestId(body, 'tools/list');
  if (id === undefined) return undefined;
  const params = (body as Record<string, unknown>)['params'];
  if (params !== undefined && !(isPlainObject(params) && Object.keys(params).length === 0)) return undefined;
  return plainLegacyRevision(req) === undefined ? undefined : id;
}
