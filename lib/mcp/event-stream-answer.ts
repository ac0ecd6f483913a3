import type { ServerResponse } from 'node:http';
import { jsonRpcErrorText, jsonRpcResultText, writeJsonRpcText, type JsonRpcErrorFields } from './json-rpc-answers.js';

/**
 * The headers the SDK's transports send with an event stream, in the order they reach the wire
 * (a web `Headers` iterates sorted), so a direct answer is byte for byte what the SDK's would be.
 */
const EVENT_STREAM_HEADERS = {
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'content-type': 'text/event-stream',
  'x-accel-buffering': 'no',
} as const;

/** What the SDK writes between events of an idle stream, so proxies do not close it. */
const KEEP_ALIVE_FRAME = ': keepalive\n\n';
/** The SDK's default interval between keep-alive frames. */
export const KEEP_ALIVE_MS = 15_000;

/**
 * One timer for every open event stream of the process, not one per stream: a call that reports
 * progress may wait minutes, and thousands may wait at once. A stream opened just before a tick gets
 * its first frame early, which costs a client nothing.
 */
export class KeepAliveTicker {
  private readonly open = new Set<ServerResponse>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly intervalMs: number = KEEP_ALIVE_MS) {}

  add(res: ServerResponse): void {
    this.open.add(res);
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    // Open streams must not keep a stopping Node-RED alive.
    this.timer.unref();
  }

  delete(res: ServerResponse): void {
    this.open.delete(res);
    if (this.open.size > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  get size(): number {
    return this.open.size;
  }

  private tick(): void {
    for (const res of this.open) {
      if (res.destroyed || res.writableEnded) this.delete(res);
      else res.write(KEEP_ALIVE_FRAME);
    }
  }
}

const sharedTicker = new KeepAliveTicker();

/**
 * The answer to one JSON-RPC request that may send notifications before it (a tool call with a
 * progress token): a single JSON body when the answer comes first, else an event stream that opens
 * with the first notification (or at once, when asked: a 2025-era call with a progress token is
 * always answered as a stream, as the SDK's transport does) and ends with the answer. The frames are
 * the SDK's: `event: message`, one `data:` line of JSON, a blank line.
 */
export class EventStreamAnswer {
  private streaming = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly ticker: KeepAliveTicker = sharedTicker,
  ) {}

  /** Whether the event stream has been opened (its head is written). */
  get isStreaming(): boolean {
    return this.streaming;
  }

  /**
   * Opens the event stream now, and keep-alive frames while it stays open. Its head goes out with the
   * first bytes after it (an event, a keep-alive frame or the answer), in the same write: a quick
   * call's whole answer is one write, as a JSON answer is.
   */
  open(): void {
    if (this.streaming) return;
    this.streaming = true;
    const res = this.res;
    res.writeHead(200, EVENT_STREAM_HEADERS);
    // Forgotten by `finish`, which every call reaches; a stream whose client left is dropped by the next tick.
    this.ticker.add(res);
  }

  /** One message before the answer (a notification's JSON text); opens the stream first. Nothing is written to a client that left. */
  send(messageJson: string): void {
    if (this.res.destroyed) return;
    this.open();
    this.res.write(`event: message\ndata: ${messageJson}\n\n`);
  }

  /** The request's result, from its JSON text: the last event of a stream, or the whole body. */
  result(resultJson: string, id: string | number): void {
    this.finish(jsonRpcResultText(resultJson, id));
  }

  /** The request's error answer. */
  error(id: string | number, error: JsonRpcErrorFields): void {
    this.finish(jsonRpcErrorText(id, error));
  }

  private finish(messageText: string): void {
    const res = this.res;
    if (!this.streaming) return writeJsonRpcText(res, messageText);
    this.ticker.delete(res);
    res.end(`event: message\ndata: ${messageText}\n\n`);
  }
}
