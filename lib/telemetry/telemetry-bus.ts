import type { ToolTelemetry } from './tool-telemetry.js';

/**
 * One per runtime: endpoints publish a telemetry event per tools/call, one metrics node may
 * subscribe. Publishing only queues; delivery happens on a later turn of the event loop, so neither a
 * slow subscriber nor one that throws can delay or fail a tool call. The queue holds only what
 * finished since the last turn: the subscriber (a Node-RED node) hands each event to Node-RED's own
 * asynchronous delivery, which is where a slow flow's backlog waits.
 */
export class TelemetryBus {
  private subscriber: { readonly owner: string; readonly deliver: (event: ToolTelemetry) => void } | undefined;
  private queue: ToolTelemetry[] = [];
  private scheduled = false;

  /** Claims the bus for `owner`; false when another owner already holds it (one metrics node per runtime). */
  subscribe(owner: string, deliver: (event: ToolTelemetry) => void): boolean {
    if (this.subscriber && this.subscriber.owner !== owner) return false;
    this.subscriber = { owner, deliver };
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

  publish(event: ToolTelemetry): void {
    if (!this.subscriber) return;
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
