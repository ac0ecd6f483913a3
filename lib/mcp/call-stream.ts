import { LOG_LEVEL_META_KEY, type ProgressToken, type ServerContext } from '@modelcontextprotocol/server';
import { isLogLevel, passesThreshold, type LogLevel } from './log-levels.js';

/** What the flow sends with `mcp-tool-progress`, once checked. */
export interface ProgressReport {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What the flow sends with `mcp-tool-log`, once checked. */
export interface LogLine {
  readonly level: LogLevel;
  readonly data: unknown;
  readonly logger?: string;
}

type Notify = ServerContext['mcpReq']['notify'];

/**
 * One call's way back to its client before the result: `notifications/progress` for the token the
 * client sent, `notifications/message` at or above the level it asked for. Built only for calls that
 * asked for either, so a plain call carries nothing. The notifications travel on the call's own
 * response stream (the SDK relates them to the request), which turns that response into SSE.
 */
export class CallStream {
  readonly progressToken: ProgressToken | undefined;
  readonly logLevel: LogLevel | undefined;
  private readonly notify: Notify;

  constructor(notify: Notify, progressToken: ProgressToken | undefined, logLevel: LogLevel | undefined) {
    this.notify = notify;
    this.progressToken = progressToken;
    this.logLevel = logLevel;
  }

  /** False when the client sent no progress token (the progress still kept the call alive). */
  progress(report: ProgressReport): boolean {
    if (this.progressToken === undefined) return false;
    const params = {
      progressToken: this.progressToken,
      progress: report.progress,
      ...(report.total !== undefined ? { total: report.total } : {}),
      ...(report.message !== undefined ? { message: report.message } : {}),
    };
    this.send({ method: 'notifications/progress', params });
    return true;
  }

  /** False when the client did not ask for lines at this level. */
  log(line: LogLine): boolean {
    if (this.logLevel === undefined || !passesThreshold(line.level, this.logLevel)) return false;
    const params = { level: line.level, data: line.data, ...(line.logger !== undefined ? { logger: line.logger } : {}) };
    this.send({ method: 'notifications/message', params });
    return true;
  }

  private send(notification: Parameters<Notify>[0]): void {
    // A client that went away cannot be told; the call itself ends through the broker.
    this.notify(notification).catch(() => undefined);
  }
}

/**
 * The stream for one `tools/call`, or undefined when the client asked for neither progress nor log
 * lines. `legacyLogLevel` is what a 2025-era caller chose with `logging/setLevel`; a 2026-07-28
 * request names its level itself, in its `_meta`.
 */
export function openCallStream(handlerCtx: ServerContext, legacyLogLevel: LogLevel | undefined): CallStream | undefined {
  const token = handlerCtx.mcpReq._meta?.progressToken;
  const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
  const envelope = handlerCtx.mcpReq.envelope as Record<string, unknown> | undefined;
  const requested = envelope ? envelope[LOG_LEVEL_META_KEY] : legacyLogLevel;
  const logLevel = isLogLevel(requested) ? requested : undefined;
  if (progressToken === undefined && logLevel === undefined) return undefined;
  return new CallStream(handlerCtx.mcpReq.notify, progressToken, logLevel);
}

/** Whether a 2025-era request body asks for a response stream: a tools/call with a progress token. */
export function wantsProgress(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(wantsProgress);
  if (typeof body !== 'object' || body === null) return false;
  const message = body as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
  return message.method === 'tools/call' && message.params?._meta?.progressToken !== undefined;
}

/** Whether a body holds a tools/call (one or in a batch). */
export function hasToolCall(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(hasToolCall);
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call';
}
