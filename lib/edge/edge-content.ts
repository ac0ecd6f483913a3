import { isPlainObject } from '../core/is-plain-object.js';
import type { ContentRelay } from '../mcp/content/content-types.js';
import { parsePromptConfig, type PromptDefinition } from '../mcp/content/prompt-definition.js';
import { parseResourceConfig, type ResourceDefinition } from '../mcp/content/resource-definition.js';
import type { EdgePrompt, EdgeResource } from './edge-protocol.js';

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

/** A resource of an edge under its hub URI (or template); throws what a declared one would. */
export function resourceOf(uri: string, offered: EdgeResource, relay: ContentRelay, allowedGroups: readonly string[] | undefined): ResourceDefinition {
  const listing = offered.listing as Record<string, unknown>;
  const annotations = isPlainObject(listing['annotations']) ? listing['annotations'] : {};
  const parsed = parseResourceConfig({
    resourceName: listing['name'],
    uri,
    title: listing['title'] ?? '',
    description: listing['description'] ?? '',
    // Blank: the edge serves it without a MIME type (undefined would read as the editor's default).
    mimeType: listing['mimeType'] ?? '',
    source: 'flow',
    flowCompletions: (offered.flowCompletions ?? []).join(','),
    size: listing['size'],
    audience: audienceOf(annotations['audience']),
    priority: annotations['priority'],
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
