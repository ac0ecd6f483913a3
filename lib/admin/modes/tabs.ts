import { copyProperty } from '../copy-value.js';
import { paginate } from '../pagination.js';
import type { ModeAnswer, ModeContext } from './mode-context.js';

/** Tab ids, labels, state and counts from the in-memory index: no admin read at all. */
export async function tabsMode({ args, inspection, sources, scope }: ModeContext): Promise<ModeAnswer> {
  const index = sources.tabIndex();
  if (index.truncated) inspection.truncated = true;
  const page = paginate(index.tabs, args.offset);
  const tabs = page.items.map((tab, position) => {
    const entry: Record<string, unknown> = { id: tab.id };
    if (tab.label !== undefined) {
      const label = copyProperty('label', tab.label, `tabs[${position}].label`, scope);
      if (label) entry.label = label.value;
    }
    return { ...entry, disabled: tab.disabled, nodeCount: tab.nodeCount, groupCount: tab.groupCount, configCount: tab.configCount };
  });
  return { fields: { tabs, indexedEntries: index.scanned }, total: page.total, nextOffset: page.nextOffset };
}
