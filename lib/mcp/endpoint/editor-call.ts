import type { CallToolResult, McpHttpHandler } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { PACKAGE_VERSION } from '../../core/defaults.js';
import { isPlainObject } from '../../core/is-plain-object.js';
import { authInfoFor } from '../exchange.js';
import { MODERN_PROTOCOL_VERSION } from '../protocol-version.js';
import { HangUp } from '../../core/hang-up.js';

/** What the editor's call got back: the tool's result, or the JSON-RPC error a client would get. */
export type EditorCallResponse = { readonly result: CallToolResult } | { readonly error: { readonly code: number; readonly message: string } };

/** The 2026-07-28 envelope of an editor call: it names the editor as its client. */
const EDITOR_ENVELOPE = Object.freeze({
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'node-red-editor', version: PACKAGE_VERSION },
  'io.modelcontextprotocol/clientCapabilities': {},
});
const EDITOR_HEADERS = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
  'mcp-method': 'tools/call',
});

/**
 * One `tools/call` from the editor's sidebar (Try it), through the endpoint's own 2026-07-28 SDK
 * handler: the same catalog, argument check, broker, flow, result checks and telemetry as a client's
 * call. Only the HTTP listener and the access policy are left out: the admin route has decided who
 * may call. Resolves to the JSON-RPC answer (a result, or a protocol error such as an unknown tool).
 */
export async function callFromEditor(mcp: McpHttpHandler, path: string, name: string, args: Record<string, unknown>, caller: CallerIdentity, signal: AbortSignal): Promise<EditorCallResponse> {
  const authInfo = authInfoFor({ caller, disconnected: HangUp.following(signal) }, caller.client ?? 'editor');
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: EDITOR_ENVELOPE } };
  // The host is never dialled: the SDK reads the request's headers and method, not its origin.
  const request = new Request(`http://editor.invalid${path}`, {
    method: 'POST',
    headers: { ...EDITOR_HEADERS, 'mcp-name': name },
    body: JSON.stringify(body),
  });
  const response = await mcp.fetch(request, { authInfo, parsedBody: body });
  const text = await response.text();
  const parsed: unknown = text.trim().startsWith('{') ? JSON.parse(text) : parseEventStreamAnswer(text);
  if (isPlainObject(parsed) && isPlainObject(parsed['result'])) return { result: parsed['result'] as CallToolResult };
  const error = isPlainObject(parsed) && isPlainObject(parsed['error']) ? parsed['error'] : { code: -32603, message: `HTTP ${response.status}` };
  return { error: { code: Number(error['code']), message: String(error['message']) } };
}

/** The last `data:` line of an event stream that carries the answer (a call that streamed first). */
function parseEventStreamAnswer(text: string): unknown {
  const data = text.split('\n').filter((line) => line.startsWith('data:')).pop();
  return data ? JSON.parse(data.slice(5)) : undefined;
}
