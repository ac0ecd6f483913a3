import type { GetPromptResult, Prompt, PromptMessage } from '@modelcontextprotocol/server';
import { parseAllowedGroups } from '../../access/allowed-groups.js';
import { parseRequiredScopes } from '../../access/required-scopes.js';
import { McpPaletteError } from '../../core/errors.js';
import type { ContentRelay } from './content-types.js';
import { listedName, optionalText, parseBinding, parseTimeout, type ToolBinding } from '../tool-definition.js';
import { splitValues, type CompletionValues } from './completion-values.js';

/** What the mcp-prompt node stores in the flow file. */
export interface PromptConfig {
  readonly promptName?: unknown;
  readonly title?: unknown;
  readonly description?: unknown;
  readonly arguments?: unknown;
  readonly source?: unknown;
  readonly messages?: unknown;
  readonly endpoint?: unknown;
  readonly timeout?: unknown;
  /** Groups whose members may see and get the prompt; empty: the endpoint's groups. */
  readonly allowedGroups?: unknown;
  /** Scopes a caller's token must carry to get it, comma- or space-separated; empty: none. */
  readonly requiredScopes?: unknown;
}

export interface PromptArgumentDefinition {
  readonly name: string;
  readonly description?: string;
  readonly required: boolean;
}

export interface TemplateMessage {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

export interface PromptDefinition {
  readonly name: string;
  readonly binding: ToolBinding;
  readonly timeoutMs: number;
  readonly arguments: readonly PromptArgumentDefinition[];
  /** Set when the editor holds the messages; undefined when a flow answers. */
  readonly template: readonly TemplateMessage[] | undefined;
  /** Exactly what `prompts/list` shows. */
  readonly listing: Prompt;
  readonly completions: CompletionValues;
  /** Arguments whose completions the flow answers (mcp-completion) instead of a list set here. */
  readonly flowCompletions: ReadonlySet<string>;
  /** Only members of one of these groups see and may get it (OAuth endpoints); absent: every caller let in. */
  readonly allowedGroups?: readonly string[];
  /** Scopes a caller's token must carry to get it: a token without one gets the step-up challenge. */
  readonly requiredScopes?: readonly string[];
  /** Set on a hub for an edge site's item: the edge answers it (lib/edge/edge-hub.ts). */
  readonly relay?: ContentRelay;
}

/** Same rule as tool names: clients turn prompt names into commands. */
const PROMPT_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const ARGUMENT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function parsePromptConfig(config: PromptConfig): PromptDefinition {
  const name = typeof config.promptName === 'string' ? config.promptName.trim() : '';
  if (!PROMPT_NAME.test(name)) throw new McpPaletteError('invalid_prompt_name', `invalid prompt name ${JSON.stringify(name)}`);
  const binding = parseBinding(config.endpoint);
  const timeoutMs = parseTimeout(config.timeout);
  const { definitions, completions, flowCompletions } = parseArguments(config.arguments);
  const template = config.source === 'flow' ? undefined : parseMessages(config.messages);
  const listing: Prompt = {
    ...listedName(name, config),
    ...(definitions.length > 0 ? { arguments: definitions.map((argument) => ({ ...argument })) } : {}),
  };
  const allowedGroups = parseAllowedGroups(config.allowedGroups);
  const requiredScopes = parseRequiredScopes(config.requiredScopes);
  return Object.freeze({ name, binding, timeoutMs, arguments: definitions, template, listing, completions, flowCompletions, ...(allowedGroups ? { allowedGroups } : {}), ...(requiredScopes ? { requiredScopes } : {}) });
}

/** Argument names that appear more than once, for the editor and the runtime alike. */
export function duplicateArgumentNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const name of names) (seen.has(name) ? twice : seen).add(name);
  return [...twice];
}

function parseArguments(value: unknown): { definitions: PromptArgumentDefinition[]; completions: CompletionValues; flowCompletions: ReadonlySet<string> } {
  const rows = Array.isArray(value) ? value : [];
  const definitions: PromptArgumentDefinition[] = [];
  const completions = new Map<string, readonly string[]>();
  const flowCompletions = new Set<string>();
  for (const row of rows as Array<Record<string, unknown>>) {
    const name = typeof row?.name === 'string' ? row.name.trim() : '';
    if (!ARGUMENT_NAME.test(name)) throw new McpPaletteError('invalid_argument_name', `invalid argument name ${JSON.stringify(name)}`, { name });
    const description = optionalText(row.description);
    definitions.push({ name, ...(description ? { description } : {}), required: row.required === true });
    // Rows saved before the choice existed have no `completion`: a list, as they always were.
    if (row.completion === 'flow') {
      flowCompletions.add(name);
      continue;
    }
    const values = splitValues(row.values);
    if (values.length > 0) completions.set(name, values);
  }
  const [duplicate] = duplicateArgumentNames(definitions.map((argument) => argument.name));
  if (duplicate !== undefined) throw new McpPaletteError('duplicate_argument', `argument ${duplicate} is declared twice`, { name: duplicate });
  return { definitions, completions, flowCompletions };
}

function parseMessages(value: unknown): TemplateMessage[] {
  const rows = Array.isArray(value) ? value : [];
  const messages = (rows as Array<Record<string, unknown>>).map((row) => ({
    role: row?.role === 'assistant' ? ('assistant' as const) : ('user' as const),
    text: typeof row?.text === 'string' ? row.text : '',
  }));
  if (messages.length === 0 || messages.every((message) => message.text.trim() === '')) {
    throw new McpPaletteError('no_messages', 'a template prompt needs at least one message with text');
  }
  return messages;
}

/**
 * Fills `{{name}}` placeholders with the arguments' values. A declared argument that was not given
 * becomes empty text; anything else in braces is left as written (it may be meant literally).
 */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>, known: ReadonlySet<string>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name]! : known.has(name) ? '' : whole,
  );
}

export function renderPrompt(prompt: PromptDefinition, values: Readonly<Record<string, string>>): GetPromptResult {
  const known = new Set(prompt.arguments.map((argument) => argument.name));
  const messages: PromptMessage[] = (prompt.template ?? []).map((message) => ({
    role: message.role,
    content: { type: 'text', text: fillPlaceholders(message.text, values, known) },
  }));
  return { ...(prompt.listing.description ? { description: prompt.listing.description } : {}), messages };
}

/**
 * Why `values` cannot be used for `prompt`, as the text of a -32602 error, or undefined. Names the
 * argument, so a client (or the model behind it) can correct the request.
 */
export function checkPromptArguments(prompt: PromptDefinition, values: Readonly<Record<string, unknown>>): string | undefined {
  for (const argument of prompt.arguments) {
    if (argument.required && (values[argument.name] === undefined || values[argument.name] === '')) {
      return `Missing required argument "${argument.name}" for prompt "${prompt.name}".`;
    }
  }
  const known = new Set(prompt.arguments.map((argument) => argument.name));
  for (const [name, value] of Object.entries(values)) {
    if (!known.has(name)) return `Unknown argument "${name}" for prompt "${prompt.name}".`;
    if (typeof value !== 'string') return `Argument "${name}" for prompt "${prompt.name}" must be a string.`;
  }
  return undefined;
}
