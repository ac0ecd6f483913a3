import type { Store, StoreState } from './store.js';

/**
 * Resolves once the store reaches `wanted` (at once if it is there already); rejects with a plain
 * Error after timeoutMs. For start-up checks and tests; request paths just call the store.
 */
export function waitForState(store: Store, wanted: StoreState, timeoutMs: number): Promise<void> {
  if (store.state === wanted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`store did not become ${wanted} within ${timeoutMs} ms (it is ${store.state})`));
    }, timeoutMs);
    const unsubscribe = store.onState((state) => {
      if (state !== wanted) return;
      clearTimeout(timer);
      unsubscribe();
      resolve();
    });
  });
}
