import type { ListResourceTemplatesResult, Resource } from '@modelcontextprotocol/server';

/** One entry of `resources/templates/list` (the SDK's `ResourceTemplate` name is its server class). */
export type ResourceTemplateListing = ListResourceTemplatesResult['resourceTemplates'][number];
import { McpPaletteError } from '../../core/errors.js';
import { optionalText, parseBinding, parseTimeout, type ToolBinding } from '../tool-definition.js';
import { parseCompletionLines, type CompletionValues } from './completion-values.js';
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
  readonly endpoint?: unknown;
  readonly timeout?: unknown;
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
}

/** `type/subtype`, optionally with parameters (RFC 6838 token characters). */
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;\s*[^;\s]+=[^;\s]+)*$/;
const MAX_NAME_LENGTH = 128;

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
  const mimeType = optionalText(config.mimeType);
  if (mimeType !== undefined && !isMimeType(mimeType)) {
    throw new McpPaletteError('invalid_mime_type', `invalid MIME type ${mimeType}`, { mimeType });
  }
  const binding = parseBinding(config.endpoint);
  const timeoutMs = parseTimeout(config.timeout);
  const staticText = config.source === 'static' ? (typeof config.text === 'string' ? config.text : '') : undefined;
  const completions = parseCompletionLines(config.completions, template?.variables ?? []);

  const title = optionalText(config.title);
  const description = optionalText(config.description);
  const common = {
    name,
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    ...(mimeType ? { mimeType } : {}),
  };
  const listing: Resource | ResourceTemplateListing = template ? { uriTemplate: uri, ...common } : { uri, ...common };
  return Object.freeze({ name, binding, timeoutMs, uri, template, mimeType, staticText, listing, completions });
}
