import type { Logger } from './logger.js';

/** Time as the limiter sees it; tests pass a clock they move by hand. */
export interface LogClock {
  now(): number;
  /** Runs `callback` once after `ms`; returns a function that cancels it. Must not keep the process alive. */
  after(ms: number, callback: () => void): () => void;
}

export const systemClock: LogClock = Object.freeze({
  now: () => Date.now(),
  after(ms: number, callback: () => void) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
});

/** The line written for the occurrences of one kind that were only counted. */
export type RepeatSummary = (kind: string, count: number, seconds: number) => string;

/**
 * Log lines that one request can cause, keyed by a kind chosen in code (a fixed, small set: never
 * a value from the request, or the table itself would grow with what clients send).
 */
export interface RequestLog {
  warn(kind: string, message: string): void;
  error(kind: string, message: string): void;
  /** Writes the pending counts now and stops the timers (the owner is closing). */
  flush(): void;
}

export interface RequestLogOptions {
  /** How long one line stands for a kind; default 60 s. */
  readonly intervalMs?: number;
  readonly clock?: LogClock;
  readonly summary?: RepeatSummary;
}

export const DEFAULT_REPEAT_INTERVAL_MS = 60_000;

const defaultSummary: RepeatSummary = (kind, count, seconds) => `${count} more "${kind}" line(s) in the last ${seconds} s, not written one by one`;

interface Window {
  count: number;
  readonly openedAt: number;
  readonly write: (message: string) => void;
  readonly cancel: () => void;
}

/**
 * Keeps a client from growing the log without bound by repeating a request that logs: the first
 * line of a kind is written as it comes, later ones within the interval are only counted, and when
 * the interval ends one line says how many there were (and opens the next interval). A kind that
 * stays quiet for a whole interval starts afresh, so the next occurrence is again written in full.
 */
export function rateLimitedLog(logger: Logger, options: RequestLogOptions = {}): RequestLog {
  const intervalMs = options.intervalMs ?? DEFAULT_REPEAT_INTERVAL_MS;
  const clock = options.clock ?? systemClock;
  const summary = options.summary ?? defaultSummary;
  const seconds = Math.round(intervalMs / 1000);
  const windows = new Map<string, Window>();

  const open = (kind: string, write: (message: string) => void): void => {
    const window: Window = { count: 0, openedAt: clock.now(), write, cancel: clock.after(intervalMs, () => close(kind, window)) };
    windows.set(kind, window);
  };
  const close = (kind: string, window: Window): void => {
    windows.delete(kind);
    if (window.count === 0) return;
    window.write(summary(kind, window.count, seconds));
    // Still busy: the next summary covers the next interval.
    open(kind, window.write);
  };
  const report = (kind: string, message: string, write: (message: string) => void): void => {
    const window = windows.get(kind);
    if (window) {
      window.count += 1;
      return;
    }
    write(message);
    open(kind, write);
  };

  return {
    warn: (kind, message) => report(kind, message, (line) => logger.warn(line)),
    error: (kind, message) => report(kind, message, (line) => logger.error(line)),
    flush() {
      for (const [kind, window] of [...windows]) {
        windows.delete(kind);
        window.cancel();
        // Cut short: say how long the counted stretch really was.
        const elapsed = Math.max(1, Math.round((clock.now() - window.openedAt) / 1000));
        if (window.count > 0) window.write(summary(kind, window.count, Math.min(elapsed, seconds)));
      }
    },
  };
}
