import type { CallerIdentity } from '../../access/access-policy.js';
import type { CallFinish, CallFinished } from './call-types.js';
import type { HangUpSignal } from '../../core/hang-up.js';
import type { Mutable } from '../../core/mutable.js';

export interface CallReporterOptions {
  readonly path: string;
  /** Told once per tools/call, whatever its outcome (audit log, telemetry). Must not throw or block. */
  readonly onCallFinished?: (event: CallFinished) => void;
  /** Whether anyone reads `responseBytes` now (sizing a large result costs a JSON serialisation). */
  readonly measureResponses?: () => boolean;
}

/** Starts the telemetry and audit of one `tools/call`, on whichever path it runs. */
export type CallReporter = (caller: CallerIdentity, disconnected: HangUpSignal | undefined, startedAt: number) => CallFinish;

/**
 * The returned reporter's `finish` reports how one call ended, once, and hands the result back:
 * the direct path, the SDK's path and tasks all report through it, so telemetry cannot tell them apart.
 */
export function callReporter(options: CallReporterOptions): CallReporter {
  const { path, onCallFinished: observer, measureResponses } = options;
  return (caller, disconnected, startedAt) => (tool, outcome, result, extra, resultJson) => {
    if (!observer) return result;
    // Member by member, not spread from temporary objects: every call reports here.
    const event = { endpoint: path, tool: tool?.name ?? 'unknown', mode: tool && !tool.runInProcess ? 'flow' : 'unknown', outcome, caller, durationMs: performance.now() - startedAt } as Mutable<CallFinished>;
    if (tool?.relay) event.site = tool.relay.site;
    // Only measured when someone listens (sizing a large result is not free), and never for a
    // client that hung up: nothing was sent to it.
    event.responseBytes = result && !disconnected?.aborted && measureResponses?.() ? Buffer.byteLength(resultJson ?? JSON.stringify(result)) : 0;
    if (extra) Object.assign(event, extra);
    observer(event);
    return result;
  };
}
