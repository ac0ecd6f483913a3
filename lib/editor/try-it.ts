import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../access/access-policy.js';
import type { FlowServerSettings } from '../config/flow-server-config.js';
import { DEFAULTS } from '../core/defaults.js';
import { McpPaletteError } from '../core/errors.js';
import { nestingExceeds } from '../http/read-json-rpc-body.js';
import { isPlainObject } from '../core/is-plain-object.js';
import type { EditorCallResponse } from '../mcp/endpoint/editor-call.js';
import { TOOL_NAME_PATTERN, type ToolDefinition } from '../mcp/tool-definition.js';
import { argumentName } from '../mcp/tool-result.js';

/** One "Try it" request from the editor's sidebar, checked. */
export interface TryItRequest {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  /** The editor user confirmed running the tool on an OAuth endpoint limited to groups. */
  readonly confirmGroups: boolean;
}

/** A client's arguments sit three levels down in its request (message, params, arguments). */
const ENVELOPE_DEPTH = 3;

/**
 * Reads the admin route's body: `tool`, and the arguments either as an object (`arguments`, from the
 * generated form) or as the text the user typed (`argumentsJson`, the raw-JSON alternative).
 * Throws McpPaletteError codes the node file translates: `try_no_tool`, `try_invalid_tool_name`,
 * `try_invalid_json`, `try_arguments_not_object`, `try_arguments_too_large`, `try_arguments_too_deep`.
 */
export function parseTryItRequest(body: unknown): TryItRequest {
  const fields = isPlainObject(body) ? body : {};
  const tool = typeof fields['tool'] === 'string' ? fields['tool'].trim() : '';
  if (tool === '') throw new McpPaletteError('try_no_tool', 'no tool named');
  // Every tool of a catalog has a name of this shape; anything else (a line break would not even fit
  // the call's Mcp-Name header) is refused here as what it is, not as an internal error later.
  if (!TOOL_NAME_PATTERN.test(tool)) throw new McpPaletteError('try_invalid_tool_name', 'not a tool name', { name: JSON.stringify(tool.slice(0, 140)) });
  let args: unknown = fields['arguments'] ?? {};
  if (typeof fields['argumentsJson'] === 'string') {
    const text = fields['argumentsJson'];
    // Checked before parsing, with the limits a client's request body has.
    checkSize(Buffer.from(text));
    try {
      args = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      throw new McpPaletteError('try_invalid_json', 'arguments are not JSON', { reason: error instanceof Error ? error.message : 'parse error' });
    }
  } else {
    // The editor's own body limit is far larger than an endpoint's: a call from the sidebar gets no more room than a client's.
    checkSize(Buffer.from(JSON.stringify(args) ?? ''));
  }
  // MCP arguments are always an object; the SDK would refuse anything else as a protocol fault.
  if (!isPlainObject(args)) throw new McpPaletteError('try_arguments_not_object', 'arguments must be a JSON object', { type: Array.isArray(args) ? 'array' : args === null ? 'null' : typeof args });
  return { tool, arguments: args, confirmGroups: fields['confirmGroups'] === true };
}

function checkSize(json: Buffer): void {
  if (json.length > DEFAULTS.maxRequestBodyBytes) {
    throw new McpPaletteError('try_arguments_too_large', 'arguments too large', { limit: DEFAULTS.maxRequestBodyBytes / 1024 });
  }
  if (nestingExceeds(json, DEFAULTS.maxRequestJsonDepth - ENVELOPE_DEPTH)) {
    throw new McpPaletteError('try_arguments_too_deep', 'arguments nested too deeply', { limit: DEFAULTS.maxRequestJsonDepth - ENVELOPE_DEPTH });
  }
}

/**
 * Who a Try-it call runs as, by the sidebar's rule:
 * - Local access: the editor user, like any program on this machine could call it.
 * - OAuth access without groups: the editor user stands in for a signed-in user.
 * - OAuth access with groups: only when the editor user confirmed it for this call; the call is then
 *   marked `groupsOverridden` in `msg.mcp.editor` and in the audit line.
 * The caller never carries a subject, e-mail or groups, so a flow that checks them itself still
 * refuses; `msg.mcp.client` is `editor`. Throws `try_groups_confirmation` when confirmation is missing.
 */
export function editorCaller(settings: Pick<FlowServerSettings, 'access' | 'groups'>, user: string | null, confirmGroups: boolean): CallerIdentity {
  const limited = settings.access === 'oauth' && settings.groups.length > 0;
  if (limited && !confirmGroups) {
    throw new McpPaletteError('try_groups_confirmation', 'endpoint limited to groups', { groups: settings.groups.join(', ') });
  }
  return { client: 'editor', editor: limited ? { user, groupsOverridden: true } : { user } };
}

export type TryItStatus = 'success' | 'error' | 'invalid_arguments' | 'protocol_error';

/** What the sidebar shows for one run. */
export interface TryItOutcome {
  readonly status: TryItStatus;
  readonly durationMs: number;
  readonly result?: CallToolResult;
  /** The arguments check, one line per problem (argument name and message), when it refused. */
  readonly problems?: readonly { readonly argument: string; readonly message: string }[];
  /** A JSON-RPC error the endpoint answered with (an unknown tool, a busy endpoint). */
  readonly error?: { readonly code: number; readonly message: string };
}

/** The endpoint side a Try-it call needs (McpEndpoint provides it). */
export interface TryItEndpoint {
  toolNamed(name: string): Pick<ToolDefinition, 'checkArguments' | 'allowedGroups'> | undefined;
  callFromEditor(name: string, args: Record<string, unknown>, caller: CallerIdentity, signal: AbortSignal): Promise<EditorCallResponse>;
}

/** Runs one checked request through the endpoint and describes how it ended. */
export async function runTryIt(endpoint: TryItEndpoint, request: TryItRequest, caller: CallerIdentity, signal: AbortSignal): Promise<TryItOutcome> {
  const startedAt = performance.now();
  // The endpoint refuses these arguments itself (and counts the refusal); the list is for the form.
  const problems = (endpoint.toolNamed(request.tool)?.checkArguments(request.arguments) ?? []).map((problem) => ({
    argument: argumentName(problem.pointer),
    message: problem.message,
  }));
  const answer = await endpoint.callFromEditor(request.tool, request.arguments, caller, signal);
  const durationMs = Math.round((performance.now() - startedAt) * 1000) / 1000;
  if ('error' in answer) return { status: 'protocol_error', durationMs, error: answer.error };
  if (problems.length > 0) return { status: 'invalid_arguments', durationMs, result: answer.result, problems };
  return { status: answer.result.isError ? 'error' : 'success', durationMs, result: answer.result };
}
