import type { CallerIdentity } from './access-policy.js';
import { groupsAdmit } from './allowed-groups.js';

/** Whether a caller may use an item restricted to `allowed` (undefined: unrestricted). */
export type Admits = (allowed: readonly string[] | undefined) => boolean;

/** Distinct group sets the views of one deploy are cut by; past this, callers share views by key alone. */
const MAX_CACHED_GROUP_SETS = 1024;

/**
 * What each caller may see of one deploy, built once per deploy and never per request. The items'
 * restrictions (their *Allowed groups*) are few distinct group sets, whatever the number of items; a
 * caller is known by which of those sets it satisfies, so every caller with the same answer shares
 * one view, built on first use. A deploy without restrictions has one view, the whole deploy, and
 * costs a caller nothing.
 *
 * An editor's call (Try it from the sidebar) sees everything: the admin route decided who may call,
 * and asks for an explicit confirmation on endpoints limited to groups.
 */
export class AccessViews<View> {
  private readonly restrictions: readonly (readonly string[])[];
  private readonly byKey = new Map<string, View>();
  /** A caller's groups (as one string) to the key of its view: the usual caller costs one Map lookup. */
  private readonly keyOfGroups = new Map<string, string>();

  constructor(
    restrictions: Iterable<readonly string[] | undefined>,
    private readonly full: View,
    private readonly build: (admits: Admits) => View,
  ) {
    const distinct = new Map<string, readonly string[]>();
    for (const allowed of restrictions) if (allowed !== undefined) distinct.set(setKey(allowed), allowed);
    this.restrictions = [...distinct.values()];
  }

  /** Whether any item of the deploy is restricted (else every caller gets the whole deploy). */
  get restricted(): boolean {
    return this.restrictions.length > 0;
  }

  /** How many distinct views callers have needed so far (bounded by the distinct restriction answers). */
  get size(): number {
    return this.byKey.size;
  }

  viewFor(caller: CallerIdentity): View {
    if (this.restrictions.length === 0 || caller.editor !== undefined) return this.full;
    const key = this.keyFor(caller.groups);
    let view = this.byKey.get(key);
    if (view === undefined) {
      const satisfied = new Set(this.restrictions.filter((_, index) => key[index] === '1').map(setKey));
      view = this.build((allowed) => allowed === undefined || satisfied.has(setKey(allowed)));
      this.byKey.set(key, view);
    }
    return view;
  }

  /** One character per distinct restriction: 1 where the caller's groups satisfy it. */
  private keyFor(groups: readonly string[] | undefined): string {
    const groupsText = groups === undefined ? '' : JSON.stringify(groups);
    const known = this.keyOfGroups.get(groupsText);
    if (known !== undefined) return known;
    const key = this.restrictions.map((allowed) => (groupsAdmit(allowed, groups ?? []) ? '1' : '0')).join('');
    // Group sets come from the identity provider, not the caller; still, the memo stays bounded.
    if (this.keyOfGroups.size >= MAX_CACHED_GROUP_SETS) this.keyOfGroups.clear();
    this.keyOfGroups.set(groupsText, key);
    return key;
  }
}

function setKey(allowed: readonly string[]): string {
  return JSON.stringify([...allowed].sort());
}
