import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainObject } from '../core/is-plain-object.js';
import { LEGACY_PROTOCOL_VERSIONS } from './protocol-version.js';

const LEGACY_REVISIONS: ReadonlySet<string> = new Set(LEGACY_PROTOCOL_VERSIONS);
/** The `_meta` keys the protocol itself defines start with this; requests carrying one take the SDK's path. */
const PROTOCOL_META_PREFIX = 'io.modelcontextprotocol/';

/**
 * The 2025 revision a POST names when the SDK's transport would accept its headers as they are: a
 * 2025 revision in MCP-Protocol-Version, both media types in Accept, a JSON body. Anything else
 * (no revision header, another revision, a missing media type) is left to the SDK, which answers
 * or refuses it.
 */
export function plainLegacyRevision(req: IncomingMessage): string | undefined {
  const revision = req.headers['mcp-protocol-version'];
  if (typeof revision !== 'string' || !LEGACY_REVISIONS.has(revision)) return undefined;
  return acceptsJsonAndEvents(req) ? revision : undefined;
}

/** Both media types in Accept and a JSON body, as the SDK's transports require of a POST. */
export function acceptsJsonAndEvents(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/**
 * The id of a single JSON-RPC 2.0 request for `method` whose envelope holds nothing but
 * `jsonrpc`, `id`, `method` and `params`, with an id the SDK accepts (a string or an integer);
 * undefined for anything else.
 */
export function plainRequestId(body: unknown, method: string): string | number | undefined {
  if (!isPlainObject(body) || body['method'] !== method || body['jsonrpc'] !== '2.0') return undefined;
  for (const key in body) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  const id = body['id'];
  return typeof id === 'string' || Number.isInteger(id) ? (id as string | number) : undefined;
}

/** A plain 2025-era `tools/call`: what the direct call path needs of it. */
export interface PlainToolCall {
  readonly id: string | number;
  readonly revision: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/**
 * A 2025-era `tools/call` that asks for nothing but the call itself — `params` of `name`,
 * `arguments` (an object, or none) and a `_meta` without a progress token or any key of the
 * protocol's own — sent with headers the SDK's transport accepts; undefined for anything else,
 * which takes the SDK's path and gets its answer or its error from there. The request shape
 * checked here is a strict subset of what the SDK's schemas accept.
 */
export function plainLegacyToolCall(req: IncomingMessage, body: unknown): PlainToolCall | undefined {
  const id = plainRequestId(body, 'tools/call');
  if (id === undefined) return undefined;
  const params = (body as Record<string, unknown>)['params'];
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  const name = params['name'];
  const args = params['arguments'] ?? {};
  if (typeof name !== 'string' || !isPlainObject(args) || !isPlainMeta(params['_meta'])) return undefined;
  const revision = plainLegacyRevision(req);
  return revision === undefined ? undefined : { id, revision, name, arguments: args };
}

function isPlainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  for (const key in meta) if (key === 'progressToken' || key.startsWith(PROTOCOL_META_PREFIX)) return false;
  return true;
}

/**
 * Writes a JSON-RPC answer from its result's JSON text: the bytes the SDK's transport writes for
 * it (`result`, then `jsonrpc` and `id`, as one JSON body).
 */
export function writeJsonRpcResult(res: ServerResponse, resultJson: string, id: string | number): void {
  const body = `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Writes a JSON-RPC answer whose bytes up to the id were encoded once (`{"result":…,"jsonrpc":"2.0","id":`):
 * the same bytes as `writeJsonRpcResult` writes, in two pieces sent together.
 */
export function writeJsonRpcAnswerFromHead(res: ServerResponse, head: Buffer, id: string | number): void {
  const tail = `${JSON.stringify(id)}}`;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': head.length + Buffer.byteLength(tail) });
  res.cork();
  res.write(head);
  res.end(tail);
  res.uncork();
}

/** Writes a JSON-RPC error answer to a request, in the SDK's shape (HTTP 200: the exchange itself worked). */
export function writeJsonRpcError(res: ServerResponse, id: string | number, error: { readonly code: number; readonly message: string; readonly data?: unknown }): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
