import { GET_FLOW_LIMITS } from './limits.js';

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  /** Where the next page starts; absent on the last page. */
  readonly nextOffset: number | undefined;
}

export function paginate<T>(list: readonly T[], offset: number, size: number = GET_FLOW_LIMITS.pageSize): Page<T> {
  const items = list.slice(offset, offset + size);
  const end = offset + items.length;
  return { items, total: list.length, nextOffset: end < list.length ? end : undefined };
}

/** The furthest of several lists paged with one offset: the next call continues them all. */
export function combinedNextOffset(...pages: readonly Page<unknown>[]): number | undefined {
  const next = pages.map((page) => page.nextOffset).filter((offset): offset is number => offset !== undefined);
  return next.length > 0 ? Math.min(...next) : undefined;
}
