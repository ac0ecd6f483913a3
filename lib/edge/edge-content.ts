import { describeError } from '../core/errors.js';
import { isPlainObject } from '../core/is-plain-object.js';
import type { ContentCall, ContentRelay } from '../mcp/content/content-types.js';
import { parsePromptConfig, type PromptDefinition } from '../mcp/content/prompt-definition.js';
import { parseResourceConfig, type ResourceDefinition } from '../mcp/content/resource-definition.js';
import { edgeUri, hubToolName, hubUri } from './edge-naming.js';
import type { Announcement, EdgePrompt, EdgeResource, RelayedContentRequest } from './edge-protocol.js';

/**
 * An edge's resources and prompts as a hub serves them: built from what the edge announced through
 * the same parsers as a declared mcp-resource or mcp-prompt node (names, URIs, MIME types, arguments,
 * sizes and annotations judged alike), answered by the edge's flow, and with the edge's own URIs in
 * its answers turned into the hub's.
 */

/**
 * Whether a resource or prompt is offered to hubs: not one limited to groups or scopes (a hub
 * restricts per site instead), not an MCP Apps view (its tool's `_meta` names this edge's URI), not
 * one this endpoint relays for another site.
 */
export function isOffered(item: ResourceDefinition | PromptDefinition): boolean {
  return !item.allowedGroups && !item.requiredScopes && !item.relay && !('appMeta' in item && item.appMeta);
}

/** How a hub names one site's items: its *Naming* (prompts) and *URI naming* (resources). */
export interface SiteNaming {
  readonly site: string;
  readonly naming: string;
  readonly uriNaming: string;
}

/**
 * A site's resources and prompts as the hub serves them, named and checked as declared ones are (an
 * edge is untrusted input): one that fails is left out and told to `refuse`, the rest are served.
 * Reads, prompts and flow completions go to the edge; completion lists set in its editor are answered
 * on the hub.
 */
export function siteContent(
  announcement: Announcement,
  { site, naming, uriNaming }: SiteNaming,
  allowedGroups: readonly string[] | undefined,
  refuse: (line: string) => void,
): { resources: ResourceDefinition[]; prompts: PromptDefinition[] } {
  const resources = new Map<string, ResourceDefinition>();
  const prompts = new Map<string, PromptDefinition>();
  for (const offered of announcement.resources ?? []) {
    // Only text is an address: a listing the protocol let through with `uri: null` names its template.
    const listing = offered.listing as { uri?: unknown; uriTemplate?: unknown };
    const own = String(typeof listing.uri === 'string' ? listing.uri : listing.uriTemplate);
    try {
      const resource = resourceOf(hubUri(uriNaming, site, own), offered, { site, name: own }, allowedGroups);
      if (resources.has(resource.uri)) throw new Error('it is announced twice');
      resources.set(resource.uri, resource);
    } catch (error) {
      refuse(`resource ${JSON.stringify(String(own).slice(0, 128))} of site ${site} was refused: ${describeError(error)}`);
    }
  }
  for (const offered of announcement.prompts ?? []) {
    const own = offered.listing.name;
    try {
      const prompt = promptOf(hubToolName(naming, site, own), offered, { site, name: own }, allowedGroups);
      if (prompts.has(prompt.name)) throw new Error('it is announced twice');
      prompts.set(prompt.name, prompt);
    } catch (error) {
      refuse(`prompt ${JSON.stringify(own.slice(0, 128))} of site ${site} was refused: ${describeError(error)}`);
    }
  }
  return { resources: [...resources.values()], prompts: [...prompts.values()] };
}

/**
 * A hub's read, prompt or completion of a site's item as the edge names it: its own URI (the hub's
 * concrete URI with the naming's fixed text taken off), prompt name or template text.
 */
export function edgeRequestOf(call: ContentCall, site: string, uriNaming: string): RelayedContentRequest {
  const name = call.relay!.name;
  switch (call.kind) {
    case 'resource-read': {
      const uri = edgeUri(uriNaming, site, call.uri);
      if (uri === undefined) throw new Error(`${call.uri} is not a URI of site ${site}`);
      return { kind: 'resource-read', uri };
    }
    case 'prompt-get':
      return { kind: 'prompt-get', name, arguments: call.arguments };
    case 'completion':
      return {
        kind: 'completion',
        ref: call.ref.type === 'ref/prompt' ? { type: 'ref/prompt', name } : { type: 'ref/resource', uri: name },
        argument: call.argument,
        ...(call.arguments ? { arguments: call.arguments } : {}),
      };
  }
}

/** A resource of an edge under its hub URI (or template); throws what a declared one would. */
export function resourceOf(uri: string, offered: EdgeResource, relay: ContentRelay, allowedGroups: readonly string[] | undefined): ResourceDefinition {
  const listing = offered.listing as Record<string, unknown>;
  const annotations = isPlainObject(listing['annotations']) ? listing['annotations'] : {};
  const parsed = parseResourceConfig({
    resourceName: listing['name'],
    uri,
    title: listing['title'] ?? '',
    description: listing['description'] ?? '',
    // Blank: the edge serves it without a MIME type (undefined would read as the editor's default); a
    // value that is no text is judged as text, and refused.
    mimeType: listing['mimeType'] === undefined ? '' : String(listing['mimeType']),
    source: 'flow',
    flowCompletions: (offered.flowCompletions ?? []).join(','),
    size: listing['size'],
    audience: audienceOf(annotations['audience']),
    priority: decimal(annotations['priority']),
    endpoint: '*',
    timeout: seconds(offered.timeoutMs),
  });
  const completions = completionsOf(offered.completions, parsed.template?.variables ?? [], parsed.flowCompletions);
  return Object.freeze({ ...parsed, completions, relay, ...(allowedGroups ? { allowedGroups } : {}) });
}

/** A prompt of an edge under its hub name; throws what a declared one would. */
export function promptOf(name: string, offered: EdgePrompt, relay: ContentRelay, allowedGroups: readonly string[] | undefined): PromptDefinition {
  const listing = offered.listing as unknown as Record<string, unknown>;
  const flow = new Set(offered.flowCompletions ?? []);
  const rows = Array.isArray(listing['arguments']) ? (listing['arguments'] as unknown[]) : [];
  const parsed = parsePromptConfig({
    promptName: name,
    title: listing['title'] ?? '',
    description: listing['description'] ?? '',
    arguments: rows.map((row) => {
      const argument = isPlainObject(row) ? row : {};
      return { name: argument['name'], description: argument['description'] ?? '', required: argument['required'] === true, ...(flow.has(String(argument['name'])) ? { completion: 'flow' } : {}) };
    }),
    // The edge renders its own template prompts: on the hub every prompt is answered by the edge.
    source: 'flow',
    endpoint: '*',
    timeout: seconds(offered.timeoutMs),
  });
  const known = parsed.arguments.map((argument) => argument.name);
  for (const name of flow) if (!known.includes(name)) throw new Error(`flow completion ${name} names no argument`);
  const completions = completionsOf(offered.completions, known, parsed.flowCompletions);
  return Object.freeze({ ...parsed, completions, relay, ...(allowedGroups ? { allowedGroups } : {}) });
}

/** Completion lists per variable or argument: each must name one, and not one the flow completes. */
function completionsOf(lists: Readonly<Record<string, readonly string[]>> | undefined, known: readonly string[], flow: ReadonlySet<string>): ReadonlyMap<string, readonly string[]> {
  const completions = new Map<string, readonly string[]>();
  for (const [name, values] of Object.entries(lists ?? {})) {
    if (!known.includes(name) || flow.has(name)) throw new Error(`completion list ${JSON.stringify(name.slice(0, 64))} names no variable or argument without a flow completion`);
    completions.set(name, Object.freeze([...new Set(values)]));
  }
  return completions;
}

/** The editor's audience choice from a listing's annotation (`user`, `assistant`, both, or unsaid). */
function audienceOf(value: unknown): string {
  if (!Array.isArray(value)) return '';
  const user = value.includes('user');
  const assistant = value.includes('assistant');
  if (value.length !== Number(user) + Number(assistant)) return 'invalid';
  return user && assistant ? 'both' : user ? 'user' : assistant ? 'assistant' : '';
}

/**
 * A number as the editor would have saved it: JSON writes a priority below 0.000001 with an exponent
 * (1e-7), which the editor's decimal check refuses though the edge accepted it.
 */
function decimal(value: unknown): unknown {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(20).replace(/\.?0+$/, '') : value;
}

function seconds(ms: number): string {
  return String(Math.max(1, Math.round(ms / 1000)));
}

/**
 * A read's contents as an edge answered them, with every item's URI turned into the hub's (the
 * edge filled in its own for items that had none). Anything else is left for the hub's own check
 * of the answer to refuse.
 */
export function qualifyContents(contents: unknown, qualify: (uri: string) => string): unknown {
  if (!Array.isArray(contents)) return contents;
  return contents.map((item: unknown) => (isPlainObject(item) && typeof item['uri'] === 'string' ? { ...item, uri: qualify(item['uri']) } : item));
}

/** A prompt's messages as an edge answered them, with the URIs of embedded resources and resource links made the hub's. */
export function qualifyMessages(messages: unknown, qualify: (uri: string) => string): unknown {
  if (!Array.isArray(messages)) return messages;
  return messages.map((message: unknown) => {
    if (!isPlainObject(message) || !isPlainObject(message['content'])) return message;
    const content = message['content'];
    if (content['type'] === 'resource_link' && typeof content['uri'] === 'string') return { ...message, content: { ...content, uri: qualify(content['uri']) } };
    const resource = content['resource'];
    if (content['type'] === 'resource' && isPlainObject(resource) && typeof resource['uri'] === 'string') {
      return { ...message, content: { ...content, resource: { ...resource, uri: qualify(resource['uri']) } } };
    }
    return message;
  });
}
