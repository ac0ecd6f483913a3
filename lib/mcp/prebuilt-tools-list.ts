import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainObject } from '../core/is-plain-object.js';
import { LEGACY_PROTOCOL_VERSIONS } from './protocol-version.js';

const LEGACY_REVISIONS: ReadonlySet<string> = new Set(LEGACY_PROTOCOL_VERSIONS);

/**
 * The JSON-RPC id of a plain 2025-era `tools/list` for the first page — the request every client
 * repeats and that never changes between deploys — or undefined for anything else. Only a request the
 * SDK's transport would accept as it is qualifies (a 2025 revision header, JSON in, both media types
 * accepted, no params but an empty object); every other shape takes the SDK's path and gets its
 * answer or its error from there.
 */
export function plainLegacyToolsListId(req: IncomingMessage, body: unknown): string | number | undefined {
  if (!isPlainObject(body) || body['method'] !== 'tools/list' || body['jsonrpc'] !== '2.0') return undefined;
  const id = body['id'];
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) return undefined;
  const params = body['params'];
  if (params !== undefined && !(isPlainObject(params) && Object.keys(params).length === 0)) return undefined;
  const revision = req.headers['mcp-protocol-version'];
  if (typeof revision !== 'string' || !LEGACY_REVISIONS.has(revision)) return undefined;
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return undefined;
  return id;
}

/**
 * Writes the answer from the list's JSON text, built once per deploy: the same bytes the SDK's
 * transport writes for it (`result`, then `jsonrpc` and `id`), without validating, encoding and
 * framing the same constant result on every request.
 */
export function writePrebuiltList(res: ServerResponse, resultJson: string, id: string | number): void {
  const body = `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
