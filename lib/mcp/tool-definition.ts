import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { DEFAULTS } from '../core/defaults.js';
import { describeError, McpPaletteError } from '../core/errors.js';
import { compileSchema, SchemaCompileError, type ValueCheck } from './json-schema.js';
import { issuesOfFaults, SchemaRefusal, type SchemaIssue } from './schema-issues.js';
import { isValidEndpointPath } from './endpoint-path.js';
import { scanParamHeaders, type ParamHeaderDeclaration } from './param-headers.js';
import { INPUT_KINDS, type InputKind } from '../input/input-requests.js';
import { parseAllowedGroups } from '../access/allowed-groups.js';
import { parseRequiredScopes } from '../access/required-scopes.js';
import { parseToolViewMeta } from './app-ui.js';

/** The MCP tool-name rule (2025-11-25): 1-128 characters from A-Z a-z 0-9 _ - . */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const SHARED_BINDING = '*';

/** What the mcp-tool-registry node stores in the flow file (strings as the editor saves them). */
export interface ToolConfig {
  readonly toolName?: unknown;
  readonly title?: unknown;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly readOnlyHint?: unknown;
  readonly destructiveHint?: unknown;
  readonly idempotentHint?: unknown;
  readonly openWorldHint?: unknown;
  readonly endpoint?: unknown;
  readonly timeout?: unknown;
  readonly maxDuration?: unknown;
  /** `never` (or absent), `optional` or `required`: whether a call may run as a task. */
  readonly taskSupport?: unknown;
  /** What the flow may ask the client for: `elicitation`, `sampling`, `roots`, comma-separated (or an array). */
  readonly asks?: unknown;
  /** true: refuse (-32021) a 2026-07-28 client that cannot take every kind in `asks`. */
  readonly asksRequired?: unknown;
  /** true: a call that runs as a task asks its questions first, and becomes a task once answered (2026-07-28). */
  readonly asksBeforeTask?: unknown;
  /** Groups whose members may see and call the tool, comma- or space-separated; empty: the endpoint's groups. */
  readonly allowedGroups?: unknown;
  /** Scopes a caller's token must carry to call the tool, comma- or space-separated; empty: none. */
  readonly requiredScopes?: unknown;
  /** The `ui://` URI of the MCP Apps view the tool shows (app-ui.ts); empty or absent for none. */
  readonly appView?: unknown;
  /** Who may call the tool: `model`, `app`, `both`, or empty (the extension's default, both). */
  readonly visibility?: unknown;
}

/** How a tool runs as a task: MCP's `execution.taskSupport`, where `forbidden` is the default. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

export type ToolBinding = { readonly shared: true } | { readonly shared: false; readonly path: string };

/** A tool ready to serve: schemas parsed and compiled once, at deploy. */
export interface ToolDefinition {
  readonly name: string;
  readonly binding: ToolBinding;
  readonly timeoutMs: number;
  /** How long progress reports can keep a call alive in all (at least timeoutMs); timeoutMs when absent. */
  readonly maxDurationMs?: number;
  /** Whether a client may (optional) or must (required) run a call as a task; absent means forbidden. */
  readonly taskSupport?: TaskSupport;
  /** What the flow may ask the client (elicitation, sampling, roots); absent when it asks nothing. */
  readonly asks?: ReadonlySet<InputKind>;
  /** Whether a client that cannot take every kind in `asks` is refused before the flow runs. */
  readonly asksRequired?: boolean;
  /** Whether a call that runs as a task asks before it becomes one (2026-07-28), rather than during it. */
  readonly asksBeforeTask?: boolean;
  /** Exactly what `tools/list` shows for this tool. */
  readonly listing: Tool;
  readonly outputSchema: Record<string, unknown> | undefined;
  readonly checkArguments: ValueCheck;
  readonly checkStructuredContent: ValueCheck | undefined;
  /** Arguments a 2026-07-28 client must repeat in `Mcp-Param-*` headers (`x-mcp-header`); absent when none. */
  readonly paramHeaders?: readonly ParamHeaderDeclaration[];
  /**
   * Set for tools the palette answers itself (the admin `get_flow`), which never reach a flow.
   * Arguments arrive already checked against the input schema.
   */
  readonly runInProcess?: (args: Record<string, unknown>, signal: AbortSignal) => Promise<InProcessResult>;
  /** An in-process tool's telemetry mode for arguments its input schema refused (when one can tell). */
  readonly modeOfRefused?: (args: unknown) => string | undefined;
  /** Set for a tool an edge Node-RED offers this hub: calls go to that site through Redis. */
  readonly relay?: { readonly site: string; readonly tool: string };
  /**
   * Only members of one of these groups see and may call the tool (OAuth endpoints); absent: every
   * caller the endpoint lets in. On a hub, an edge site's groups.
   */
  readonly allowedGroups?: readonly string[];
  /**
   * Scopes a caller's token must carry to call the tool (OAuth endpoints): a token without one gets
   * the step-up challenge (403 insufficient_scope). Absent: signing in is enough.
   */
  readonly requiredScopes?: readonly string[];
  /** Set for a tool that shows an MCP Apps view: its flow learns whether the client shows views (`msg.mcp.ui`). */
  readonly showsView?: true;
}

/** What an in-process tool returns: the result, plus facts for the call's telemetry. */
export interface InProcessResult {
  readonly result: CallToolResult;
  readonly mode?: string;
  readonly scannedNodes?: number;
  readonly cached?: boolean;
}

export function parseToolConfig(config: ToolConfig): ToolDefinition {
  const name = typeof config.toolName === 'string' ? config.toolName.trim() : '';
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new McpPaletteError('invalid_tool_name', `invalid tool name ${JSON.stringify(name)}`);
  }
  const binding = parseBinding(config.endpoint);
  const timeoutMs = parseTimeout(config.timeout);
  const maxDurationMs = parseMaxDuration(config.maxDuration, timeoutMs);
  const taskSupport = parseTaskSupport(config.taskSupport);
  const asks = parseAsks(config.asks);
  const allowedGroups = parseAllowedGroups(config.allowedGroups);
  const requiredScopes = parseRequiredScopes(config.requiredScopes);
  const inputSchema = parseSchemaText(config.inputSchema, 'input');
  if (!inputSchema) throw new SchemaRefusal('invalid_input_schema', 'required', [{ key: 'required', params: {} }]);
  const outputSchema = parseSchemaText(config.outputSchema, 'output');
  const checkArguments = compileOrThrow(inputSchema, 'input');
  const paramHeaders = paramHeadersOrThrow(inputSchema);
  const checkStructuredContent = outputSchema ? compileOrThrow(outputSchema, 'output') : undefined;

  const named = listedName(name, config);
  const viewMeta = parseToolViewMeta(config);
  const listing: Tool = {
    ...named,
    inputSchema: inputSchema as Tool['inputSchema'],
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
    annotations: parseAnnotations(config, named.title),
    ...(taskSupport !== 'forbidden' ? { execution: { taskSupport } } : {}),
    ...(viewMeta ? { _meta: viewMeta } : {}),
  };
  return Object.freeze({
    name,
    binding,
    timeoutMs,
    maxDurationMs,
    ...(taskSupport !== 'forbidden' ? { taskSupport } : {}),
    ...(asks.size > 0 ? { asks, asksRequired: isTrue(config.asksRequired), asksBeforeTask: isTrue(config.asksBeforeTask) } : {}),
    listing,
    outputSchema,
    checkArguments,
    checkStructuredContent,
    ...(paramHeaders.length > 0 ? { paramHeaders } : {}),
    ...(allowedGroups ? { allowedGroups } : {}),
    ...(requiredScopes ? { requiredScopes } : {}),
    ...(typeof config.appView === 'string' && config.appView.trim() !== '' ? { showsView: true as const } : {}),
  });
}

/**
 * Parses and checks one schema text as the editor sends it; used by the editor's inline check and by
 * `parseToolConfig`, so both say the same thing. Empty text means "no schema" (for output schemas).
 */
export function parseSchemaText(text: unknown, kind: 'input' | 'output'): Record<string, unknown> | undefined {
  const code = kind === 'input' ? 'invalid_input_schema' : 'invalid_output_schema';
  let value: unknown = text;
  if (typeof text === 'string') {
    if (text.trim() === '') return undefined;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const detail = error instanceof Error ? error.message : 'parse error';
      throw new SchemaRefusal(code, `not valid JSON (${detail})`, [{ key: 'notJson', params: { detail } }]);
    }
  } else if (text === undefined || text === null) {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SchemaRefusal(code, 'must be a JSON object', [{ key: 'notObject', params: {} }]);
  }
  const schema = value as Record<string, unknown>;
  // MCP requires object-shaped arguments and structured results, so the root must say so.
  if (schema.type !== 'object') {
    throw new SchemaRefusal(code, 'the root must have "type": "object"', [{ key: 'rootType', params: {} }]);
  }
  return schema;
}

function compileOrThrow(schema: Record<string, unknown>, kind: 'input' | 'output'): ValueCheck {
  try {
    return compileSchema(schema);
  } catch (error) {
    const reason = describeError(error);
    const issues: SchemaIssue[] =
      error instanceof SchemaCompileError ? issuesOfFaults(error.faults) : [{ key: 'compile', params: { detail: reason } }];
    throw new SchemaRefusal(kind === 'input' ? 'invalid_input_schema' : 'invalid_output_schema', reason, issues);
  }
}

/**
 * The `x-mcp-header` declarations of an input schema. An invalid one is refused at deploy: conforming
 * 2026-07-28 clients leave such a tool out of their list, so serving it would only hide it.
 */
function paramHeadersOrThrow(schema: Record<string, unknown>): readonly ParamHeaderDeclaration[] {
  const scan = scanParamHeaders(schema);
  if (!scan.valid) throw new SchemaRefusal('invalid_input_schema', scan.reason, [{ key: 'paramHeader', params: { detail: scan.reason } }]);
  return scan.declarations;
}

/**
 * Both the editor's check and the runtime use this, so a schema the editor accepts always starts.
 * Each issue is one problem, for the editor to say as one sentence in its own language.
 */
export function checkSchemaText(text: unknown, kind: 'input' | 'output'): SchemaIssue[] {
  try {
    const schema = parseSchemaText(text, kind);
    if (!schema) return kind === 'input' ? [{ key: 'required', params: {} }] : [];
    compileOrThrow(schema, kind);
    if (kind === 'input') paramHeadersOrThrow(schema);
    return [];
  } catch (error) {
    if (error instanceof SchemaRefusal) return [...error.issues];
    throw error;
  }
}

export function parseBinding(endpoint: unknown): ToolBinding {
  if (typeof endpoint !== 'string' || endpoint.trim() === '') {
    throw new McpPaletteError('no_endpoint', 'no endpoint chosen');
  }
  const value = endpoint.trim();
  if (value === SHARED_BINDING) return { shared: true };
  if (!isValidEndpointPath(value)) throw new McpPaletteError('invalid_endpoint', `invalid endpoint path ${value}`);
  return { shared: false, path: value };
}

export function parseTimeout(timeout: unknown): number {
  if (timeout === undefined || timeout === '' || timeout === null) return DEFAULTS.toolTimeoutSeconds * 1000;
  const seconds = typeof timeout === 'number' ? timeout : Number(timeout);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > DEFAULTS.toolTimeoutSecondsMax) {
    throw new McpPaletteError('invalid_timeout', `invalid timeout ${String(timeout)}`);
  }
  return Math.round(seconds * 1000);
}

/**
 * Flows saved before the field existed have none: they get the default, or their own time limit
 * when that is longer, so no tool that worked before is cut short now.
 */
function parseMaxDuration(maxDuration: unknown, timeoutMs: number): number {
  if (maxDuration === undefined || maxDuration === '' || maxDuration === null) {
    return Math.max(DEFAULTS.toolMaxDurationSeconds * 1000, timeoutMs);
  }
  const seconds = typeof maxDuration === 'number' ? maxDuration : Number(maxDuration);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > DEFAULTS.toolTimeoutSecondsMax) {
    throw new McpPaletteError('invalid_max_duration', `invalid maximum duration ${String(maxDuration)}`);
  }
  const ms = Math.round(seconds * 1000);
  if (ms < timeoutMs) {
    throw new McpPaletteError('max_duration_below_timeout', `maximum duration ${seconds} s is shorter than the time limit`, {
      maxDuration: seconds,
      timeout: timeoutMs / 1000,
    });
  }
  return ms;
}

/** The editor says never / optional / required; flows saved before the field existed never run as tasks. */
export function parseTaskSupport(value: unknown): TaskSupport {
  if (value === undefined || value === null || value === '' || value === 'never' || value === 'forbidden') return 'forbidden';
  if (value === 'optional' || value === 'required') return value;
  throw new McpPaletteError('invalid_task_support', `invalid task support ${String(value)}`, { value: String(value) });
}

function parseAnnotations(config: ToolConfig, title: string | undefined): ToolAnnotations {
  // Flows saved before a hint existed keep MCP's own default for it.
  const flag = (value: unknown, fallback: boolean) => (typeof value === 'boolean' ? value : fallback);
  const readOnlyHint = flag(config.readOnlyHint, false);
  return {
    ...(title ? { title } : {}),
    readOnlyHint,
    // The spec gives destructive/idempotent meaning only for tools that modify their environment.
    ...(readOnlyHint ? {} : { destructiveHint: flag(config.destructiveHint, true), idempotentHint: flag(config.idempotentHint, false) }),
    openWorldHint: flag(config.openWorldHint, true),
  };
}

export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A listed item's name with the title and description the editor gave it; blank ones are left out of the listing. */
export interface ListedName {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
}

/** What tools, resources and prompts list the same way: `{ name, title?, description? }`. */
export function listedName(name: string, config: { readonly title?: unknown; readonly description?: unknown }): ListedName {
  const title = optionalText(config.title);
  const description = optionalText(config.description);
  return { name, ...(title ? { title } : {}), ...(description ? { description } : {}) };
}

/** The kinds a tool may ask the client for, from the editor's comma-separated text or an array. */
export function parseAsks(value: unknown): ReadonlySet<InputKind> {
  if (value === undefined || value === null || value === '') return new Set();
  const names = (Array.isArray(value) ? value : String(value).split(',')).map((name) => String(name).trim()).filter((name) => name !== '');
  const unknown = names.find((name) => !(INPUT_KINDS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw new McpPaletteError('invalid_asks', `"Asks the client" names ${JSON.stringify(unknown.slice(0, 40))}; use elicitation, sampling or roots`, { name: unknown.slice(0, 40) });
  }
  return new Set(names as InputKind[]);
}

/** A checkbox as the editor saves it (a boolean), or as a hand-written flow may spell it. */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}
