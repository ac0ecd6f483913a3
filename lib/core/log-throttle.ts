import type { Logger } from './logger.js';

/** How many keys a throttle remembers; the oldest is forgotten first. */
const MAX_KEYS = 1_000;

/**
 * At most one log line per key and interval, for warnings a flow can trigger many times a second
 * (a progress loop that outlives its call: key it by kind and executionId, and that call gets one
 * line). The next line let through for a key says how many were held back. No timer: it compares
 * times when asked; bounded memory.
 */
export class LogThrottle {
  private readonly intervalMs: number;
  private readonly keys = new Map<string, { at: number; held: number }>();

  constructor(intervalMs = 10_000) {
    this.intervalMs = intervalMs;
  }

  /** The number of lines held back for `key` since its last one, when this one may be written; else undefined. */
  admit(key: string, now = Date.now()): number | undefined {
    const entry = this.keys.get(key);
    if (entry && now - entry.at < this.intervalMs) {
      entry.held += 1;
      return undefined;
    }
    const held = entry?.held ?? 0;
    this.keys.delete(key);
    this.keys.set(key, { at: now, held: 0 });
    if (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
    return held;
  }

  /**
   * Warns with `line` when `key` admits it; a line after held-back ones ends with how many there were
   * (`heldNote`, " (N more since the last line)" unless the caller words it for its lines).
   */
  warn(logger: Pick<Logger, 'warn'>, key: string, line: string, heldNote: (held: number) => string = (held) => ` (${held} more since the last line)`): void {
    const held = this.admit(key);
    if (held !== undefined) logger.warn(line + (held > 0 ? heldNote(held) : ''));
  }
}
