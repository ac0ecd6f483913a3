import { LOG_LEVEL_META_KEY, type ProgressToken, type ServerContext } from '@modelcontextprotocol/server';
import { DEFAULTS } from '../core/defaults.js';
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

/** How a call stream hands a notification on: the SDK's request context, or a direct answer's event stream. */
export type CallStreamNotify = ServerContext['mcpReq']['notify'];
type Notify = CallStreamNotify;

/** How much one call's notifications may wait for a client that does not read them. */
export interface CallStreamBound {
  /** Bytes handed over but not yet taken by the client's connection, at most. */
  readonly maxBacklogBytes: number;
  /** The call's own HTTP response: its unsent bytes are what waits (absent for editor calls). */
  readonly response?: { readonly writableLength: number } | undefined;
  /** Told once, at the end of a call that dropped notifications, how many. */
  readonly onDropped?: ((count: number) => void) | undefined;
}

/** Who the closing notice comes from, as a log line's `logger`. */
const NOTICE_LOGGER = 'node-red-mcp';

/**
 * One call's way back to its client before the result: `notifications/progress` for the token the
 * client sent, `notifications/message` at or above the level it asked for. Built only for calls that
 * asked for either, so a plain call carries nothing. The notifications travel on the call's own
 * response stream (the SDK relates them to the request), which turns that response into SSE.
 *
 * A client may read more slowly than the flow writes, or not at all: a flow writing thousands of long
 * lines to such a client would be buffered whole. So a notification is dropped (and counted)
 * while what waits for the client — handed to the SDK and not yet written, plus the response's unsent
 * bytes — is past the bound; `end` tells the client once how many were dropped.
 */
export class CallStream {
  readonly progressToken: ProgressToken | undefined;
  readonly logLevel: LogLevel | undefined;
  private readonly notify: Notify;
  private readonly bound: CallStreamBound;
  /** Bytes of notifications handed to the SDK whose sending has not finished yet. */
  private handedOver = 0;
  private dropped = 0;

  constructor(notify: Notify, progressToken: ProgressToken | undefined, logLevel: LogLevel | undefined, bound: CallStreamBound = { maxBacklogBytes: Infinity }) {
    this.notify = notify;
    this.progressToken = progressToken;
    this.logLevel = logLevel;
    this.bound = bound;
  }

  /** How many notifications were dropped so far because the client did not read them. */
  get droppedCount(): number {
    return this.dropped;
  }

  /**
   * At the end of the call, before its result: a client that missed notifications is told how many,
   * with one warning log line (when it asked for warnings), and `onDropped` hears the count.
   */
  async end(): Promise<void> {
    if (this.dropped === 0) return;
    this.bound.onDropped?.(this.dropped);
    if (this.logLevel === undefined || !passesThreshold('warning', this.logLevel)) return;
    const data =
      `${this.dropped} progress reports and log lines of this call were dropped: the client did not read them as fast as the flow wrote them ` +
      `(at most ${Math.round(this.bound.maxBacklogBytes / 1024)} KiB wait per call).`;
    // Past the bound on purpose: it is one short line, and the result follows it anyway.
    await this.notify({ method: 'notifications/message', params: { level: 'warning', logger: NOTICE_LOGGER, data } }).catch(() => undefined);
  }

  /** False when the client sent no progress token (the progress still kept the call alive), or when it was dropped. */
  progress(report: ProgressReport): boolean {
    if (this.progressToken === undefined) return false;
    const params = {
      progressToken: this.progressToken,
      progress: report.progress,
      ...(report.total !== undefined ? { total: report.total } : {}),
      ...(report.message !== undefined ? { message: report.message } : {}),
    };
    return this.send({ method: 'notifications/progress', params });
  }

  /** False when the client did not ask for lines at this level, or when the line was dropped. */
  log(line: LogLine): boolean {
    if (this.logLevel === undefined || !passesThreshold(line.level, this.logLevel)) return false;
    const params = { level: line.level, data: line.data, ...(line.logger !== undefined ? { logger: line.logger } : {}) };
    return this.send({ method: 'notifications/message', params });
  }

  private send(notification: Parameters<Notify>[0]): boolean {
    const bytes = this.bound.maxBacklogBytes === Infinity ? 0 : Buffer.byteLength(JSON.stringify(notification.params) ?? '');
    const waiting = this.handedOver + (this.bound.response?.writableLength ?? 0);
    // A line longer than the bound still goes out when nothing waits: it is the flow's own message.
    if (waiting > 0 && waiting + bytes > this.bound.maxBacklogBytes) {
      this.dropped += 1;
      return false;
    }
    this.handedOver += bytes;
    // A client that went away cannot be told; the call itself ends through the broker.
    this.notify(notification)
      .catch(() => undefined)
      .finally(() => (this.handedOver -= bytes));
    return true;
  }
}

/**
 * The stream for one `tools/call`, or undefined when the client asked for neither progress nor log
 * lines. `legacyLogLevel` is what a 2025-era caller chose with `logging/setLevel`; a 2026-07-28
 * request names its level itself, in its `_meta`. `response` (the call's HTTP response) and
 * `onDropped` make the stream bounded by `DEFAULTS.maxCallStreamBacklogBytes`.
 */
export function openCallStream(
  handlerCtx: ServerContext,
  legacyLogLevel: LogLevel | undefined,
  response?: CallStreamBound['response'],
  onDropped?: CallStreamBound['onDropped'],
): CallStream | undefined {
  const token = handlerCtx.mcpReq._meta?.progressToken;
  const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
  const envelope = handlerCtx.mcpReq.envelope as Record<string, unknown> | undefined;
  const requested = envelope ? envelope[LOG_LEVEL_META_KEY] : legacyLogLevel;
  const logLevel = isLogLevel(requested) ? requested : undefined;
  if (progressToken === undefined && logLevel === undefined) return undefined;
  return new CallStream(handlerCtx.mcpReq.notify, progressToken, logLevel, { maxBacklogBytes: DEFAULTS.maxCallStreamBacklogBytes, response, onDropped });
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
