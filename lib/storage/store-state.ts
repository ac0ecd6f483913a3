import type { StoreState } from './store.js';

/**
 * The current availability of a store plus its listeners. A throwing listener must not break the
 * driver's event handling or starve the other listeners, so its error goes to `onListenerError`.
 */
export class StoreStateTracker {
  private current: StoreState;
  private readonly listeners = new Set<(state: StoreState) => void>();
  private readonly onListenerError: (error: unknown) => void;

  constructor(initial: StoreState, onListenerError: (error: unknown) => void) {
    this.current = initial;
    this.onListenerError = onListenerError;
  }

  get state(): StoreState {
    return this.current;
  }

  /** true when the state changed, so callers log transitions rather than every repeat. */
  set(next: StoreState): boolean {
    if (next === this.current) return false;
    this.current = next;
    for (const listener of [...this.listeners]) {
      try {
        listener(next);
      } catch (error) {
        this.onListenerError(error);
      }
    }
    return true;
  }

  subscribe(listener: (state: StoreState) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  clear(): void {
    this.listeners.clear();
  }
}
