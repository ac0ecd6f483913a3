import type { CallerIdentity } from '../../access/access-policy.js';
import { missingScopes } from '../../access/required-scopes.js';
import type { CatalogView } from '../catalog-view.js';
import { isPlainObject } from '../json-schema.js';

/** An item a request names that requires scopes: a tool it calls, a resource it reads, a prompt it gets. */
export interface ScopedItem {
  readonly kind: 'tool' | 'resource' | 'prompt';
  /** The tool's or prompt's name, or the resource's declared URI or template (never the URI read). */
  readonly name: string;
  readonly lacking: readonly string[];
}

/**
 * The items of a request (each message of a batch) whose *Required scopes* the caller's token lacks.
 * Judged on the caller's own view, so an item it may not see is never challenged for: it is answered
 * later as one nobody serves, and its name leaks nothing. Empty when the request may go on.
 */
export function itemsLackingScopes(body: unknown, view: CatalogView, caller: CallerIdentity): readonly ScopedItem[] {
  const messages = Array.isArray(body) ? body : [body];
  const items: ScopedItem[] = [];
  for (const message of messages) {
    const item = scopedItem(message, view);
    const lacking = item ? missingScopes(item.required, caller.scopes) : [];
    if (item && lacking.length > 0) items.push({ kind: item.kind, name: item.name, lacking });
  }
  return items;
}

/** Every scope the items lack, once each: one challenge names them all (MCP: no scope at a time). */
export function lackingScopes(items: readonly ScopedItem[]): readonly string[] {
  return [...new Set(items.flatMap((item) => item.lacking))];
}

function scopedItem(message: unknown, view: CatalogView): { kind: ScopedItem['kind']; name: string; required: readonly string[] } | undefined {
  if (!isPlainObject(message) || !isPlainObject(message['params'])) return undefined;
  const params = message['params'];
  const method = message['method'];
  if (method === 'tools/call' && typeof params['name'] === 'string') {
    const tool = view.tools.find(params['name']);
    return tool?.requiredScopes && { kind: 'tool', name: tool.name, required: tool.requiredScopes };
  }
  if (method === 'resources/read' && typeof params['uri'] === 'string') {
    const resource = view.content.findResource(params['uri'])?.resource;
    return resource?.requiredScopes && { kind: 'resource', name: resource.uri, required: resource.requiredScopes };
  }
  if (method === 'prompts/get' && typeof params['name'] === 'string') {
    const prompt = view.content.findPrompt(params['name']);
    return prompt?.requiredScopes && { kind: 'prompt', name: prompt.name, required: prompt.requiredScopes };
  }
  return undefined;
}
