import type { ListResourceTemplatesResult, Resource } from '@modelcontextprotocol/server';

/** One entry of `resources/templates/list` (the SDK's `ResourceTemplate` name is its server class). */
export type ResourceTemplateListing = ListResourceTemplatesResult['resourceTemplates'][number];
import { parseAllowedGroups } from '../../access/allowed-groups.js';
import { parseRequiredScopes } from '../../access/required-scopes.js';
import { McpPaletteError } from '../../core/errors.js';
import type { ContentRelay } from './content-types.js';
import { listedName, optionalText, parseBinding, parseTimeout, type ToolBinding } from '../tool-definition.js';
import { parseCompletionLines, splitValues, type CompletionValues } from './completion-values.js';
import { isFixedUri, isUriTemplate, parseUriTemplate, UriTemplateError, type UriTemplate } from './uri-template.js';

/** What the mcp-resource node stores in the flow file (strings as the editor saves them). */
export interface ResourceConfig {
  readonly resourceName?: unknown;
  readonly uri?: unknown;
  readonly title?: unknown;
  readonly description?: unknown;
  readonly mimeType?: unknown;
  readonly source?: unknown;
  readonly text?: unknown;
  readonly completions?: unknown;
  /** Template variables the flow completes (mcp-completion), comma-separated. */
  readonly flowCompletions?: unknown;
  /** Size hint in bytes, for fixed URIs. */
  readonly size?: unknown;
  /** Who the content is for: `user`, `assistant`, `both`, or empty (unsaid). */
  readonly audience?: unknown;
  /** Importance from 0 to 1, or empty (unsaid). */
  readonly priority?: unknown;
  readonly endpoint?: unknown;
  readonly timeout?: unknown;
  /** Groups whose members may see and read the resource; empty: the endpoint's groups. */
  readonly allowedGroups?: unknown;
  /** Scopes a caller's token must carry to read it, comma- or space-separated; empty: none. */
  readonly requiredScopes?: unknown;
}

/** A resource ready to serve: a fixed URI or a parsed template, checked once at deploy. */
export interface ResourceDefinition {
  readonly name: string;
  readonly binding: ToolBinding;
  readonly timeoutMs: number;
  /** The fixed URI, or the template's text. */
  readonly uri: string;
  readonly template: UriTemplate | undefined;
  readonly mimeType: string | undefined;
  /** Set when the editor holds the content; `{{variable}}` placeholders take the template's values. */
  readonly staticText: string | undefined;
  /** Exactly what `resources/list` (fixed) or `resources/templates/list` (template) shows. */
  readonly listing: Resource | ResourceTemplateListing;
  /** Completion values for the template's variables. */
  readonly completions: CompletionValues;
  /** Template variables whose completions the flow answers. */
  readonly flowCompletions: ReadonlySet<string>;
  /** Only members of one of these groups see and may read it (OAuth endpoints); absent: every caller let in. */
  readonly allowedGroups?: readonly string[];
  /** Scopes a caller's token must carry to read it: a token without one gets the step-up challenge. */
  readonly requiredScopes?: readonly string[];
  /** Set for an MCP Apps view (app-view.ts): the `_meta` every read's contents carry, whatever the flow sent. */
  readonly appMeta?: Readonly<Record<string, unknown>>;
  /** Set on a hub for an edge site's item: the edge answers it (lib/edge/edge-hub.ts). */
  readonly relay?: ContentRelay;
}

/** `type/subtype`, optionally with parameters (RFC 6838 token characters). */
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;\s*[^;\s]+=[^;\s]+)*$/;
const MAX_NAME_LENGTH = 128;
/** What the editor gives a new resource (nodes/mcp-resource/mcp-resource.html), and so a node saved without one. */
const DEFAULT_MIME_TYPE = 'text/plain';

export function isMimeType(text: string): boolean {
  return MIME_TYPE.test(text);
}

/** The URI field's check, shared by the editor's validation endpoint and the runtime. */
export function checkResourceUri(text: unknown): string | undefined {
  const uri = typeof text === 'string' ? text.trim() : '';
  if (uri === '') return 'is required';
  if (isUriTemplate(uri)) {
    try {
      parseUriTemplate(uri);
      return undefined;
    } catch (error) {
      return (error as UriTemplateError).message;
    }
  }
  if (uri.includes('}')) return 'has a "}" without its "{"';
  return isFixedUri(uri) ? undefined : 'must be an absolute URI such as plant://line-1/status, without spaces';
}

export function parseResourceConfig(config: ResourceConfig): ResourceDefinition {
  const name = typeof config.resourceName === 'string' ? config.resourceName.trim() : '';
  if (name === '' || name.length > MAX_NAME_LENGTH) {
    throw new McpPaletteError('invalid_resource_name', `invalid resource name ${JSON.stringify(name)}`);
  }
  const uri = typeof config.uri === 'string' ? config.uri.trim() : '';
  const uriProblem = checkResourceUri(uri);
  if (uriProblem) throw new McpPaletteError('invalid_uri', `URI ${uri}: ${uriProblem}`, { uri, reason: uriProblem });
  const template = isUriTemplate(uri) ? parseUriTemplate(uri) : undefined;
  // A resource saved without the field reads as the editor's default; a blank one has no MIME type.
  const mimeType = config.mimeType === undefined ? DEFAULT_MIME_TYPE : optionalText(config.mimeType);
  if (mimeType !== undefined && !isMimeType(mimeType)) {
    throw new McpPaletteError('invalid_mime_type', `invalid MIME type ${mimeType}`, { mimeType });
  }
  const binding = parseBinding(config.endpoint);
  const timeoutMs = parseTimeout(config.timeout);
  const staticText = config.source === 'static' ? (typeof config.text === 'string' ? config.text : '') : undefined;
  const completions = parseCompletionLines(config.completions, template?.variables ?? []);
  const flowCompletions = parseFlowCompletions(config.flowCompletions, template?.variables ?? [], completions);
  const size = template ? undefined : parseSize(config.size);
  const annotations = parseAnnotations(config.audience, config.priority);

  const common = {
    ...listedName(name, config),
    ...(mimeType ? { mimeType } : {}),
    ...(annotations ? { annotations } : {}),
  };
  const listing: Resource | ResourceTemplateListing = template
    ? { uriTemplate: uri, ...common }
    : { uri, ...common, ...(size !== undefined ? { size } : {}) };
  const allowedGroups = parseAllowedGroups(config.allowedGroups);
  const requiredScopes = parseRequiredScopes(config.requiredScopes);
  return Object.freeze({ name, binding, timeoutMs, uri, template, mimeType, staticText, listing, completions, flowCompletions, ...(allowedGroups ? { allowedGroups } : {}), ...(requiredScopes ? { requiredScopes } : {}) });
}

/** The variables named here are completed by the flow; each must be a variable without a list. */
function parseFlowCompletions(text: unknown, variables: readonly string[], listed: CompletionValues): ReadonlySet<string> {
  const names = splitValues(text);
  for (const name of names) {
    if (!variables.includes(name) || listed.has(name)) {
      throw new McpPaletteError('invalid_flow_completions', `flow completion ${name} names no template variable without a list`, { name });
    }
  }
  return new Set(names);
}

function parseSize(value: unknown): number | undefined {
  const text = value === undefined || value === null ? '' : String(value).trim();
  if (text === '') return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new McpPaletteError('invalid_size', `invalid size ${text}`, { size: text });
  return Number(text);
}

type Annotations = NonNullable<Resource['annotations']>;

function parseAnnotations(audienceValue: unknown, priorityValue: unknown): Annotations | undefined {
  const audience = typeof audienceValue === 'string' ? audienceValue.trim() : '';
  const roles: Annotations['audience'] | undefined =
    audience === 'user' ? ['user'] : audience === 'assistant' ? ['assistant'] : audience === 'both' ? ['user', 'assistant'] : undefined;
  if (audience !== '' && roles === undefined) throw new McpPaletteError('invalid_audience', `invalid audience ${audience}`, { audience });
  const priorityText = priorityValue === undefined || priorityValue === null ? '' : String(priorityValue).trim();
  const priority = priorityText === '' ? undefined : Number(priorityText);
  if (priority !== undefined && (!/^\d*\.?\d+$/.test(priorityText) || priority < 0 || priority > 1)) {
    throw new McpPaletteError('invalid_priority', `invalid priority ${priorityText}`, { priority: priorityText });
  }
  if (!roles && priority === undefined) return undefined;
  return { ...(roles ? { audience: roles } : {}), ...(priority !== undefined ? { priority } : {}) };
}
