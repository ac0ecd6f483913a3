import { createHash } from 'node:crypto';
import { groupsAdmit } from '../access/allowed-groups.js';
import type { ContentCatalog } from './content/content-catalog.js';
import type { ListKind } from './list-changes.js';
import type { ToolCatalog } from './tool-catalog.js';

/**
 * Per kind of list, a digest of the items of each audience: `''` for the items every caller the
 * endpoint lets in sees, else the items limited to one *Allowed groups* set (its JSON). A caller's view
 * of a list changes exactly when the items of an audience it belongs to do.
 */
export type ListAudiences = Readonly<Record<ListKind, ReadonlyMap<string, string>>>;

/**
 * Who a deploy's change of each list concerns: `null` for every caller, else one *Allowed groups*
 * set (a caller in any of its groups). What an instance tells the others, so that they judge each
 * open stream as the deploying instance judges its own.
 */
export type AudienceChange = Partial<Record<ListKind, readonly (readonly string[] | null)[]>>;

/** Bounds on an announcement another instance sent: past them, every stream hears (never fewer). */
const MAX_AUDIENCES_PER_KIND = 1024;
const MAX_GROUPS_PER_AUDIENCE = 256;
const MAX_GROUP_LENGTH = 256;

/** The audiences of a deploy's lists; computed once per deploy, beside their fingerprints. */
export function audiencesOf(tools: ToolCatalog, content: ContentCatalog): ListAudiences {
  const { resources, prompts } = content.items;
  return Object.freeze({
    tools: digestByAudience(tools.listings.map((listing) => [listing, tools.find(listing.name)?.allowedGroups])),
    resources: digestByAudience(resources.map((resource) => [resource.listing, resource.allowedGroups])),
    prompts: digestByAudience(prompts.map((prompt) => [prompt.listing, prompt.allowedGroups])),
  });
}

/** For each of `kinds`, the audiences whose items differ between two deploys (an item that moved counts for both). */
export function changedAudiences(before: ListAudiences | undefined, after: ListAudiences, kinds: readonly ListKind[]): AudienceChange {
  const change: Partial<Record<ListKind, (readonly string[] | null)[]>> = {};
  for (const kind of kinds) {
    const was = before?.[kind] ?? new Map<string, string>();
    const now = after[kind];
    const keys = new Set([...was.keys(), ...now.keys()]);
    change[kind] = [...keys].filter((key) => was.get(key) !== now.get(key)).map((key) => (key === '' ? null : (JSON.parse(key) as string[])));
  }
  return change;
}

/** Whether a caller in `groups` is among `audiences` (every caller is among `null`). */
export function audienceIncludes(audiences: readonly (readonly string[] | null)[], groups: readonly string[] | undefined): boolean {
  return audiences.some((allowed) => allowed === null || groupsAdmit(allowed, groups));
}

/**
 * An announcement's audiences as another instance sent them, or undefined when absent or not as this
 * palette writes them (an older instance, a value past the bounds): then every stream hears, as before.
 */
export function parseAudienceChange(value: unknown, kinds: readonly ListKind[]): AudienceChange | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const change: Partial<Record<ListKind, (readonly string[] | null)[]>> = {};
  for (const kind of kinds) {
    const audiences = (value as Record<string, unknown>)[kind];
    if (!Array.isArray(audiences) || audiences.length > MAX_AUDIENCES_PER_KIND || !audiences.every(isAudience)) return undefined;
    change[kind] = audiences as (readonly string[] | null)[];
  }
  return change;
}

function isAudience(value: unknown): boolean {
  if (value === null) return true;
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= MAX_GROUPS_PER_AUDIENCE &&
    value.every((group) => typeof group === 'string' && group.length > 0 && group.length <= MAX_GROUP_LENGTH)
  );
}

function digestByAudience(items: readonly (readonly [unknown, readonly string[] | undefined])[]): ReadonlyMap<string, string> {
  const byAudience = new Map<string, unknown[]>();
  for (const [listing, allowed] of items) {
    const key = allowed === undefined ? '' : JSON.stringify(allowed);
    let members = byAudience.get(key);
    if (members === undefined) byAudience.set(key, (members = []));
    members.push(listing);
  }
  return new Map([...byAudience].map(([key, members]) => [key, createHash('sha256').update(JSON.stringify(members)).digest('base64url')]));
}

/** What each endpoint's audiences were at its last deploy, for the whole process (as `servedLists`). */
export class ServedAudiences {
  private readonly byEndpoint = new Map<string, ListAudiences>();

  /** Records what `endpoint` serves now and returns whom the changed `kinds` concern. */
  update(endpoint: string, next: ListAudiences, kinds: readonly ListKind[]): AudienceChange {
    const change = changedAudiences(this.byEndpoint.get(endpoint), next, kinds);
    this.byEndpoint.set(endpoint, next);
    return change;
  }
}

export const servedAudiences = new ServedAudiences();
