// Recognising the requests the endpoint answers directly (mcp-endpoint.ts, direct-tool-call.ts): each
// recogniser accepts a strict subset of what the SDK would accept as it is, and leaves the rest to it.
import type { IncomingMessage } from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { isPlainObject } from '../core/is-plain-object.js';
import type { Mutable } from '../core/mutable.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from './protocol-version.js';

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
function acceptsJsonAndEvents(req: IncomingMessage): boolean {
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

/**
 * The JSON-RPC id of a plain 2025-era `tools/list` for the first page — the request every client
 * repeats and that never changes between deploys — or undefined for anything else: headers the SDK's
 * transport accepts, and no params but an empty object or a `_meta` of nothing but a progress token
 * (Codex sends one with every request; a list reports no progress, so the SDK answers it as JSON too).
 * Its answer is written from bytes encoded once per deploy (`ToolCatalog.listAnswerHead`).
 */
export function plainLegacyToolsListId(req: IncomingMessage, body: unknown): string | number | undefined {
  const id = plainRequestId(body, 'tools/list');
  if (id === undefined) return undefined;
  const params = (body as Record<string, unknown>)['params'];
  if (params !== undefined && !(isPlainObject(params) && isEmptyOrTokenOnly(params))) return undefined;
  return plainLegacyRevision(req) === undefined ? undefined : id;
}

/** `{}`, or `{ _meta: { progressToken } }` with a token of the SDK's type. */
function isEmptyOrTokenOnly(params: Record<string, unknown>): boolean {
  for (const key in params) if (key !== '_meta') return false;
  const meta = params['_meta'];
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  for (const key in meta) if (key !== 'progressToken') return false;
  return progressTokenOf(meta) !== undefined;
}

/** A plain `tools/call` of either era: what the direct call path needs of it (`revision` tells the era). */
export interface PlainToolCall {
  readonly id: string | number;
  readonly revision: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** What a 2026-07-28 client declared it can do (its envelope's capabilities); undefined on the 2025 revisions. */
  readonly clientCapabilities?: Record<string, unknown>;
  /** The client's progress token (Claude Code and Codex send one with every call); the answer may then be an event stream. */
  readonly progressToken?: string | number;
}

/** The call with its progress token, when it has one (assigned: every plain call is read here). */
function withProgressToken(call: Mutable<PlainToolCall>, progressToken: string | number | undefined): PlainToolCall {
  if (progressToken !== undefined) call.progressToken = progressToken;
  return call;
}

/**
 * A 2025-era `tools/call` that asks for nothing but the call itself and perhaps its progress —
 * `params` of `name`, `arguments` (an object, or none) and a `_meta` without any key of the
 * protocol's own but a progress token of the SDK's type (a string or an integer) — sent with headers
 * the SDK's transport accepts; undefined for anything else, which takes the SDK's path and gets its
 * answer or its error from there. The request shape checked here is a strict subset of what the
 * SDK's schemas accept.
 */
export function plainLegacyToolCall(req: IncomingMessage, body: unknown): PlainToolCall | undefined {
  const call = plainCallParams(body);
  if (!call || !isPlainMeta(call.meta)) return undefined;
  const revision = plainLegacyRevision(req);
  if (revision === undefined) return undefined;
  const progressToken = progressTokenOf(call.meta);
  return withProgressToken({ id: call.id, revision, name: call.name, arguments: call.arguments }, progressToken);
}

/**
 * The progress token of a `_meta` that `isPlainMeta` or `plainModernEnvelope` took. The SDK's schema
 * takes a string or an integer; an integer beyond the safe range is left to it.
 */
function progressTokenOf(meta: unknown): string | number | undefined {
  const token = (meta as Record<string, unknown> | undefined)?.['progressToken'];
  return typeof token === 'string' || Number.isSafeInteger(token) ? (token as string | number) : undefined;
}

/** The id, tool name, arguments (an object, or none) and `_meta` of a `tools/call` whose params hold nothing else. */
function plainCallParams(body: unknown): { id: string | number; name: string; arguments: Record<string, unknown>; meta: unknown } | undefined {
  const id = plainRequestId(body, 'tools/call');
  if (id === undefined) return undefined;
  const params = (body as Record<string, unknown>)['params'];
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  const name = params['name'];
  const args = params['arguments'] ?? {};
  return typeof name === 'string' && isPlainObject(args) ? { id, name, arguments: args, meta: params['_meta'] } : undefined;
}

/**
 * A 2025-era `_meta` the direct path takes: none, or keys of the client's own and a progress token of
 * the SDK's type. A direct read or prompt ignores the token, as the SDK's path does (neither reports
 * progress, and a 2025-era read with a token is answered as JSON there too).
 */
function isPlainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  for (const key in meta) {
    if (key === 'progressToken' ? progressTokenOf(meta) === undefined : key.startsWith(PROTOCOL_META_PREFIX)) return false;
  }
  return true;
}

const ENVELOPE_KEYS: ReadonlySet<string> = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
/** Distinct envelopes remembered as valid; a client sends the same one on every request. */
const MAX_REMEMBERED_ENVELOPES = 256;
const validEnvelopes = new Set<string>();

/**
 * The JSON-RPC id of a plain 2026-07-28 `tools/list` for the first page — what Claude Code sends after
 * every change it hears of — or undefined for anything else: headers naming the revision and the
 * method, both media types accepted, and params of nothing but an envelope of the protocol version,
 * client info and client capabilities that the SDK's own classification takes, and perhaps a progress
 * token (a list reports no progress). Its answer is written from bytes encoded once per deploy
 * (`ToolCatalog.modernListAnswerHead`).
 */
export function plainModernToolsListId(req: IncomingMessage, body: unknown): string | number | undefined {
  const headers = req.headers;
  if (headers['mcp-protocol-version'] !== MODERN_PROTOCOL_VERSION || headers['mcp-method'] !== 'tools/list') return undefined;
  const id = plainRequestId(body, 'tools/list');
  if (id === undefined) return undefined;
  const params = (body as Record<string, unknown>)['params'];
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== '_meta') return undefined;
  const meta = params['_meta'];
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_PROTOCOL_VERSION) return undefined;
  for (const key in meta) if (key === 'progressToken' ? progressTokenOf(meta) === undefined : !ENVELOPE_KEYS.has(key)) return undefined;
  if (!acceptsJsonAndEvents(req) || !envelopeIsValid(meta, body, 'tools/list')) return undefined;
  return id;
}

/**
 * A 2026-07-28 `tools/call` that asks for nothing but the call itself and perhaps its progress:
 * headers naming the revision, the method and the tool as its body does, both media types accepted,
 * a JSON body; `params` of `name`, `arguments` (an object, or none) and an envelope of the protocol
 * version, client info and client capabilities, and perhaps a progress token (no log level, no
 * answers or request state of an earlier round). Undefined for anything else, which takes the SDK's path and gets its answer or
 * its error from there.
 */
export function plainModernToolCall(req: IncomingMessage, body: unknown): PlainToolCall | undefined {
  if (req.headers['mcp-protocol-version'] !== MODERN_PROTOCOL_VERSION) return undefined;
  const call = plainCallParams(body);
  const envelope = call && req.headers['mcp-name'] === call.name ? plainModernEnvelope(req, body, 'tools/call', call.meta) : undefined;
  if (!call || !envelope) return undefined;
  const declared = envelope[CLIENT_CAPABILITIES_META_KEY];
  const progressToken = progressTokenOf(envelope);
  const clientCapabilities = isPlainObject(declared) ? declared : {};
  return withProgressToken({ id: call.id, revision: MODERN_PROTOCOL_VERSION, name: call.name, arguments: call.arguments, clientCapabilities }, progressToken);
}

/**
 * The envelope of a 2026-07-28 request that asks for nothing but its answer (and perhaps progress):
 * headers naming the revision and the method, both media types accepted, a JSON body, and a `_meta`
 * holding the protocol version, client info and client capabilities that the SDK's own
 * classification takes, perhaps a progress token of the SDK's type, and no log level or protocol key
 * of any other kind. Keys of the client's own may be there. Undefined for anything else.
 */
function plainModernEnvelope(req: IncomingMessage, body: unknown, method: DirectMethod, meta: unknown): Record<string, unknown> | undefined {
  if (req.headers['mcp-protocol-version'] !== MODERN_PROTOCOL_VERSION || req.headers['mcp-method'] !== method) return undefined;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_PROTOCOL_VERSION) return undefined;
  for (const key in meta) {
    if (key === 'progressToken' ? progressTokenOf(meta) === undefined : key.startsWith(PROTOCOL_META_PREFIX) && !ENVELOPE_KEYS.has(key)) return undefined;
  }
  return acceptsJsonAndEvents(req) && envelopeIsValid(meta, body, method) ? meta : undefined;
}

/** A plain `resources/read` or `prompts/get` of either era: what the direct path needs of it (`revision` tells the era). */
interface PlainContentRequest {
  readonly id: string | number;
  readonly revision: string;
  /** The 2026-07-28 envelope (what the client can be asked); undefined on the 2025 revisions. */
  readonly envelope: Record<string, unknown> | undefined;
}

export interface PlainResourceRead extends PlainContentRequest {
  readonly uri: string;
}

export interface PlainPromptGet extends PlainContentRequest {
  readonly name: string;
  readonly arguments: Record<string, unknown> | undefined;
}

/**
 * A `resources/read` whose params hold a string `uri` and a plain `_meta` only, with headers the
 * SDK's transport accepts as they are (on 2026-07-28 also an Mcp-Name equal to the URI, and the
 * envelope of `plainModernEnvelope`); undefined for anything else, which takes the SDK's path. A
 * strict subset of what the SDK's schemas accept.
 */
export function plainResourceRead(req: IncomingMessage, body: unknown): PlainResourceRead | undefined {
  const plain = plainContentRequest(req, body, 'resources/read', 'uri');
  const uri = plain?.params['uri'];
  if (!plain || typeof uri !== 'string' || (plain.envelope && req.headers['mcp-name'] !== uri)) return undefined;
  return { id: plain.id, revision: plain.revision, envelope: plain.envelope, uri };
}

/**
 * A `prompts/get` whose params hold a string `name`, `arguments` (an object, or none) and a plain
 * `_meta` only, with headers the SDK's transport accepts as they are (on 2026-07-28 also an Mcp-Name
 * equal to the name, and the envelope of `plainModernEnvelope`); undefined for anything else. A
 * strict subset of what the SDK's schemas accept; the argument values are checked by the prompt.
 */
export function plainPromptGet(req: IncomingMessage, body: unknown): PlainPromptGet | undefined {
  const plain = plainContentRequest(req, body, 'prompts/get', 'name', 'arguments');
  const name = plain?.params['name'];
  const args = plain?.params['arguments'];
  if (!plain || typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
  if (plain.envelope && req.headers['mcp-name'] !== name) return undefined;
  return { id: plain.id, revision: plain.revision, envelope: plain.envelope, name, arguments: args };
}

/** The id, era and params of a plain request for `method` whose params hold nothing but `fields` and `_meta`. */
function plainContentRequest(req: IncomingMessage, body: unknown, method: DirectMethod, ...fields: string[]) {
  const id = plainRequestId(body, method);
  if (id === undefined) return undefined;
  const params = (body as Record<string, unknown>)['params'];
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== '_meta' && !fields.includes(key)) return undefined;
  if (req.headers['mcp-protocol-version'] === MODERN_PROTOCOL_VERSION) {
    const envelope = plainModernEnvelope(req, body, method, params['_meta']);
    return envelope && { id, revision: MODERN_PROTOCOL_VERSION, params, envelope };
  }
  const revision = isPlainMeta(params['_meta']) ? plainLegacyRevision(req) : undefined;
  return revision === undefined ? undefined : { id, revision, params, envelope: undefined };
}

/** The methods whose plain requests are answered without the SDK. */
type DirectMethod = 'tools/call' | 'tools/list' | 'resources/read' | 'prompts/get';

/**
 * Whether the SDK's own classification takes the envelope (client info and capabilities against the
 * revision's schema). Remembered by the envelope's JSON text: clients repeat theirs on every call.
 * The progress token, new with every call, is left out of that text (its type is checked above).
 */
function envelopeIsValid(meta: Record<string, unknown>, body: unknown, method: DirectMethod): boolean {
  const key = JSON.stringify('progressToken' in meta ? { ...meta, progressToken: undefined } : meta);
  if (validEnvelopes.has(key)) return true;
  const outcome = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: MODERN_PROTOCOL_VERSION, mcpMethodHeader: method, body });
  if (outcome.kind !== 'modern') return false;
  if (validEnvelopes.size >= MAX_REMEMBERED_ENVELOPES) validEnvelopes.clear();
  validEnvelopes.add(key);
  return true;
}
