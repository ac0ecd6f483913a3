import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** The list methods that page; a cursor names its own, so one list's cursor cannot drive another. */
export type ListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

/** Longer cursors are refused before decoding: ours are a method name and one item key. */
const MAX_CURSOR_LENGTH = 2048;
const CURSOR_VERSION = 'v1';

/**
 * One sorted list served in pages with opaque cursors, built once per deploy. Every page is built
 * here too, so serving a page is one Map lookup. A cursor names the last item the client has seen
 * (not an offset): after a deploy that adds or removes items, the next page still starts right after
 * that item, so a client paging across a deploy neither skips nor repeats what was there before.
 * Such a cursor is no longer a page boundary and costs a binary search and one slice instead.
 */
export class PagedList<Item, Result extends object> {
  /** The first page: with everything on one page, exactly the unpaged result. */
  readonly first: Result;
  private readonly pagesAfter = new Map<string, Result>();
  private readonly keys: readonly string[];

  constructor(
    private readonly method: ListMethod,
    private readonly items: readonly Item[],
    keyOf: (item: Item) => string,
    private readonly wrap: (items: readonly Item[], nextCursor: string | undefined) => Result,
    private readonly pageSize: number,
  ) {
    this.keys = items.map(keyOf);
    this.first = this.build(0);
    for (let start = pageSize; start < items.length; start += pageSize) {
      this.pagesAfter.set(this.keys[start - 1]!, this.build(start));
    }
  }

  /** Every item, unpaged (what changed between two deploys is judged on the whole list). */
  get all(): readonly Item[] {
    return this.items;
  }

  /** The page after `cursor` (the first page without one); -32602 for a cursor this list did not issue. */
  page(cursor: unknown): Result {
    if (cursor === undefined) return this.first;
    const key = this.keyAfter(cursor);
    const ready = this.pagesAfter.get(key);
    if (ready) return ready;
    return this.build(firstAbove(this.keys, key));
  }

  private build(start: number): Result {
    const end = Math.min(start + this.pageSize, this.items.length);
    const next = end < this.items.length ? encodeCursor(this.method, this.keys[end - 1]!) : undefined;
    return Object.freeze(this.wrap(this.items.slice(start, end), next));
  }

  private keyAfter(cursor: unknown): string {
    const decoded = typeof cursor === 'string' && cursor.length <= MAX_CURSOR_LENGTH ? decodeCursor(cursor) : undefined;
    if (decoded === undefined || decoded.method !== this.method) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid cursor for ${this.method}: use the nextCursor of a previous ${this.method} answer, or call ${this.method} without a cursor to start again.`,
      );
    }
    return decoded.key;
  }
}

export function encodeCursor(method: ListMethod, key: string): string {
  return Buffer.from(`${CURSOR_VERSION}|${method}|${key}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { method: string; key: string } | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [version, method, ...rest] = text.split('|');
  if (version !== CURSOR_VERSION || method === undefined || rest.length === 0) return undefined;
  return { method, key: rest.join('|') };
}

/** Index of the first key greater than `key` in sorted `keys`. */
function firstAbove(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! <= key) low = middle + 1;
    else high = middle;
  }
  return low;
}
