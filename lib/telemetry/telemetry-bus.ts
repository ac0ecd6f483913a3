import type { ContentTelemetry } from './content-telemetry.js';
import type { ToolTelemetry } from './tool-telemetry.js';

export type TelemetryEvent = ToolTelemetry | ContentTelemetry;

export interface SubscribeOptions {
  /**
   * Whether the subscriber takes resource, prompt and completion events too. Metrics nodes saved
   * before those existed take tool events only, so flows written for tool calls stay correct.
   */
  readonly content?: boolean;
}

/**
 * One per runtime: endpoints publish a telemetry event per tools/call (and, for a subscriber that
 * asked for them, per resource read, prompt and completion), one metrics node may
 * subscribe. Publishing only queues; delivery happens on a later turn of the event loop, so neither a
 * slow subscriber nor one that throws can delay or fail a tool call. The queue holds only what
 * finished since the last turn: the subscriber (a Node-RED node) hands each event to Node-RED's own
 * asynchronous delivery, which is where a slow flow's backlog waits.
 */
export class TelemetryBus {
  private subscriber: { readonly owner: string; readonly deliver: (event: TelemetryEvent) => void; readonly content: boolean } | undefined;
  private queue: TelemetryEvent[] = [];
  private scheduled = false;

  /** Claims the bus for `owner`; false when another owner already holds it (one metrics node per runtime). */
  subscribe(owner: string, deliver: (event: TelemetryEvent) => void, options: SubscribeOptions = {}): boolean {
    if (this.subscriber && this.subscriber.owner !== owner) return false;
    this.subscriber = { owner, deliver, content: options.content === true };
    return true;
  }

  unsubscribe(owner: string): void {
    if (this.subscriber?.owner === owner) {
      this.subscriber = undefined;
      this.queue = [];
    }
  }

  get hasSubscriber(): boolean {
    return this.subscriber !== undefined;
  }

  /** Whether a resource, prompt or completion event would be delivered (so it is worth building). */
  get wantsContent(): boolean {
    return this.subscriber?.content === true;
  }

  publish(event: TelemetryEvent): void {
    if (!this.subscriber || (event.kind !== 'tool' && !this.subscriber.content)) return;
    this.queue.push(event);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    for (const event of batch) {
      try {
        this.subscriber?.deliver(event);
      } catch {
        // A subscriber's failure is its own; the next event is still delivered.
      }
    }
  }
}
