/**
 * Whether the client of a request hung up, as the palette asks it on its hot paths: `aborted`, and
 * listeners for the moment it happens (the broker's, while a call waits). An AbortSignal fits it, and
 * so does HangUp, which stands in for an AbortController per request: an AbortSignal is an
 * EventTarget, and every request paid for one, and every pending call held one, though nearly all
 * requests end without hanging up.
 */
export interface HangUpSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** One request's hang-up: aborted once, when its connection closes before its answer is written. */
export class HangUp implements HangUpSignal {
  aborted = false;
  private listeners: Array<() => void> | undefined;
  private controller: AbortController | undefined;

  /** The client hung up: each listener is called once, then the AbortSignal if one was asked for. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) {
      try {
        listener();
      } catch (error) {
        // As an EventTarget does: the other listeners still run, and the error is not swallowed.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.controller?.abort();
  }

  /** As on an AbortSignal, a listener added after the hang-up is never called; each is called once. */
  addEventListener(_type: 'abort', listener: () => void, _options?: { readonly once?: boolean }): void {
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.listeners!.splice(index, 1);
  }

  /** An AbortSignal that aborts with this hang-up, made the first time some code needs one (a fetch). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** A hang-up that follows `signal` (a call from the editor brings its own). */
  static following(signal: AbortSignal): HangUp {
    const hangUp = new HangUp();
    if (signal.aborted) hangUp.abort();
    else signal.addEventListener('abort', () => hangUp.abort(), { once: true });
    return hangUp;
  }
}
