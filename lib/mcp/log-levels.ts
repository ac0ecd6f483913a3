/** MCP's log levels (RFC 5424 severities), least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const SEVERITY = new Map<string, number>(LOG_LEVELS.map((level, index) => [level, index]));

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && SEVERITY.has(value);
}

/** Whether a line at `level` reaches a client that asked for `threshold` and above. */
export function passesThreshold(level: LogLevel, threshold: LogLevel): boolean {
  return SEVERITY.get(level)! >= SEVERITY.get(threshold)!;
}

/** How many callers' levels one endpoint remembers; the least recently set is forgotten first. */
const MAX_REMEMBERED_CALLERS = 10_000;

/**
 * The levels 2025-era clients chose with `logging/setLevel`. Stateless traffic has no session to
 * keep them in, so they are kept per caller (see callerKey): on OAuth endpoints each sign-in of each
 * client has its own; on Local endpoints, which cannot tell callers apart, the last level set counts
 * for every client of the endpoint. In memory, per endpoint and per Node-RED instance; bounded.
 */
export class LogLevelBook {
  private readonly levels = new Map<string, LogLevel>();

  set(caller: string, level: LogLevel): void {
    // Re-inserting moves the caller to the end, so the oldest entry is the first one.
    this.levels.delete(caller);
    this.levels.set(caller, level);
    if (this.levels.size > MAX_REMEMBERED_CALLERS) this.levels.delete(this.levels.keys().next().value!);
  }

  get(caller: string): LogLevel | undefined {
    return this.levels.get(caller);
  }

  /** No caller has chosen a level: the common case, checked before a caller key is even built. */
  get isEmpty(): boolean {
    return this.levels.size === 0;
  }
}
