import type { IncomingMessage } from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { isPlainObject } from '../core/is-plain-object.js';
import { acceptsJsonAndEvents, plainRequestId, type PlainToolCall } from './plain-legacy-request.js';
import { MODERN_PROTOCOL_VERSION } from './protocol-version.js';

const PROTOCOL_META_PREFIX = 'io.modelcontextprotocol/';
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
/** Distinct envelopes remembered as valid; a client sends the same one on every request. */
const MAX_REMEMBERED_ENVELOPES = 256;
const validEnvelopes = new Set<string>();

/**
 * A 2026-07-28 `tools/call` that asks for nothing but the call itself: headers naming the revision,
 * the method and the tool as its body does, both media types accepted, a JSON body; `params` of
 * `name`, `arguments` (an object, or none) and an envelope of the protocol version, client info and
 * client capabilities only (no log level, no progress token, no answers or request state of an
 * earlier round). Undefined for anything else, which takes the SDK's path and gets its answer or
 * its error from there.
 */
export function plainModernToolCall(req: IncomingMessage, body: unknown): PlainToolCall | undefined {
  const headers = req.headers;
  if (headers['mcp-protocol-version'] !== MODERN_PROTOCOL_VERSION || headers['mcp-method'] !== 'tools/call') return undefined;
  const id = plainRequestId(body, 'tools/call');
  if (id === undefined) return undefined;
  const params = (body as Record<string, unknown>)['params'];
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  const name = params['name'];
  const args = params['arguments'] ?? {};
  if (typeof name !== 'string' || headers['mcp-name'] !== name || !isPlainObject(args)) return undefined;
  const meta = params['_meta'];
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_PROTOCOL_VERSION) return undefined;
  for (const key in meta) if (key === 'progressToken' || (key.startsWith(PROTOCOL_META_PREFIX) && !ENVELOPE_KEYS.has(key))) return undefined;
  if (!acceptsJsonAndEvents(req) || !envelopeIsValid(meta, body)) return undefined;
  return { id, revision: MODERN_PROTOCOL_VERSION, name, arguments: args };
}

/**
 * Whether the SDK's own classification takes the envelope (client info and capabilities against the
 * revision's schema). Remembered by the envelope's JSON text: clients repeat theirs on every call.
 */
function envelopeIsValid(meta: Record<string, unknown>, body: unknown): boolean {
  const key = JSON.stringify(meta);
  if (validEnvelopes.has(key)) return true;
  const outcome = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: MODERN_PROTOCOL_VERSION, mcpMethodHeader: 'tools/call', body });
  if (outcome.kind !== 'modern') return false;
  if (validEnvelopes.size >= MAX_REMEMBERED_ENVELOPES) validEnvelopes.clear();
  validEnvelopes.add(key);
  return true;
}
