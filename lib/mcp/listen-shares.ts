/**
 * Each caller's share of an endpoint's `subscriptions/listen` streams. The endpoint holds at most
 * Open streams (`maxStreams`) of them; without shares one caller could take them all and leave every
 * other client without change notifications. A caller (callerKey: a signed-in user with one client)
 * may hold a tenth of them, at least one: room for ten callers at their full share, and a client
 * usually keeps one stream. Callers that cannot be told apart (Local access, where every caller is
 * '') are not limited here; the endpoint's own cap still holds for them.
 */
export const LISTEN_SHARE_DIVISOR = 10;

/** The most streams one caller may hold on an endpoint with `maxStreams` Open streams. */
export function listenShareOf(maxStreams: number): number {
  return Math.max(1, Math.floor(maxStreams / LISTEN_SHARE_DIVISOR));
}

export class ListenShares {
  readonly perCaller: number;
  /** Open streams per caller; a caller without any has no entry. */
  private readonly open = new Map<string, number>();

  constructor(readonly maxStreams: number) {
    this.perCaller = listenShareOf(maxStreams);
  }

  /**
   * Takes one stream for `caller`: the release to call once, when the stream closes, or undefined
   * when the caller already holds its share (nothing is taken then).
   */
  take(caller: string): (() => void) | undefined {
    if (caller === '') return NOTHING_TO_RELEASE;
    const held = this.open.get(caller) ?? 0;
    if (held >= this.perCaller) return undefined;
    this.open.set(caller, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(caller) ?? 1) - 1;
      if (left > 0) this.open.set(caller, left);
      else this.open.delete(caller);
    };
  }

  /** Streams `caller` holds now. */
  heldBy(caller: string): number {
    return this.open.get(caller) ?? 0;
  }
}

const NOTHING_TO_RELEASE = (): void => {};
