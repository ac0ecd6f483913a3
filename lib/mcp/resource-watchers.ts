/**
 * Which resource URIs the open `subscriptions/listen` streams of one endpoint asked for, counted per
 * URI, so an update nobody listens to is known as such (and logged) instead of vanishing. Each
 * stream adds its URIs once and releases them once, when its connection closes.
 */
export class ResourceWatchers {
  private readonly counts = new Map<string, number>();

  /** Returns the release for this stream; calling it twice releases once. */
  watch(uris: readonly string[]): () => void {
    const unique = [...new Set(uris)];
    for (const uri of unique) this.counts.set(uri, (this.counts.get(uri) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const uri of unique) {
        const left = (this.counts.get(uri) ?? 1) - 1;
        if (left > 0) this.counts.set(uri, left);
        else this.counts.delete(uri);
      }
    };
  }

  isWatched(uri: string): boolean {
    return this.counts.has(uri);
  }

  /** How many distinct URIs are watched (for tests and status). */
  get size(): number {
    return this.counts.size;
  }
}
