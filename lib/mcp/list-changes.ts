import { createHash } from 'node:crypto';
import type { ServerEvent } from '@modelcontextprotocol/server';
import type { ContentCatalog } from './content/content-catalog.js';
import type { ToolCatalog } from './tool-catalog.js';

/** The lists a deploy can change, named as `subscriptions/listen` filters name them. */
export type ListKind = 'tools' | 'resources' | 'prompts';
export const LIST_KINDS: readonly ListKind[] = Object.freeze(['tools', 'resources', 'prompts']);

export type ListFingerprints = Readonly<Record<ListKind, string>>;

/**
 * A digest of what each list shows a client, so a deploy that rebuilds a catalog without changing
 * it (another tab was deployed) tells nobody anything. Computed once per deploy, never per request.
 */
export function fingerprintLists(tools: ToolCatalog, content: ContentCatalog): ListFingerprints {
  return Object.freeze({
    // Every page: a change past the first page of a long list is a change too. Who may see each item
    // is part of what a list shows, to each caller.
    tools: digest([tools.listings, [...tools.restrictions]]),
    resources: digest([content.resourcePages.all, content.templatePages.all, content.resourceRestrictions]),
    prompts: digest([content.promptPages.all, content.promptRestrictions]),
  });
}

export function changedKinds(previous: ListFingerprints | undefined, next: ListFingerprints): ListKind[] {
  if (!previous) return [];
  return LIST_KINDS.filter((kind) => previous[kind] !== next[kind]);
}

/** The change event the SDK's listen router delivers for one kind of list. */
export function listChangedEvent(kind: ListKind): ServerEvent {
  switch (kind) {
    case 'tools':
      return { kind: 'tools_list_changed' };
    case 'resources':
      return { kind: 'resources_list_changed' };
    case 'prompts':
      return { kind: 'prompts_list_changed' };
  }
}

export function isListKind(value: unknown): value is ListKind {
  return value === 'tools' || value === 'resources' || value === 'prompts';
}

/**
 * The lists each endpoint served last, for the whole process. Kept outside the endpoint because a
 * full deploy replaces the endpoint node itself: the new one still has to see what changed, so that
 * clients on other instances (whose streams survived) are told.
 */
export class ServedLists {
  private readonly byEndpoint = new Map<string, ListFingerprints>();

  /** Records what `endpoint` serves now and returns which lists differ from what it served before. */
  update(endpoint: string, next: ListFingerprints): ListKind[] {
    const changed = changedKinds(this.byEndpoint.get(endpoint), next);
    this.byEndpoint.set(endpoint, next);
    return changed;
  }
}

export const servedLists = new ServedLists();

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url');
}
