/**
 * The last `capacity` keys added, for telling a repeat from a first sighting. A ring of the keys in
 * the order they came says which one to forget, in constant time: forgetting the oldest through a
 * Set's own iterator costs more with every key forgotten, since V8 leaves each deleted entry in the
 * Set's table for the iterator to step over (5 µs a key at 10 000, measured).
 */
export class RecentKeys {
  private readonly keys = new Set<string>();
  private readonly ring: Array<string | undefined>;
  private next = 0;

  constructor(capacity: number) {
    this.ring = new Array<string | undefined>(capacity);
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Remembers `key` (one that is not remembered now), forgetting the oldest when full. */
  add(key: string): void {
    const oldest = this.ring[this.next];
    if (oldest !== undefined) this.keys.delete(oldest);
    this.ring[this.next] = key;
    this.next = (this.next + 1) % this.ring.length;
    this.keys.add(key);
  }

  get size(): number {
    return this.keys.size;
  }
}
