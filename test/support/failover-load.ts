/**
 * A load of concurrent operations that keeps going while a test breaks something, and counts what
 * the callers saw: answers, clear errors (accepted by `isClear`), other errors, and hangs (an
 * operation still unsettled after `hangAfterMs`). Each worker runs one operation at a time.
 */
export interface LoadCounts {
  ok: number;
  clearErrors: number;
  otherErrors: string[];
  hangs: number;
  /** Per worker: did its last few operations succeed (the load was served again at the end)? */
  recovered: boolean;
  /**
   * The longest any worker went unserved: from the start of the first operation of a run of failures
   * (or hangs) to the end of the success that ended it (0 when nothing failed). What a client saw.
   */
  longestOutageMs: number;
  /** When (epoch ms) the last run of failures of any worker ended in a success; undefined when none failed. */
  lastRecoveryAt: number | undefined;
}

export interface Load {
  /** Stops the workers, waits for the operations in flight, and returns the counts. */
  stop(): Promise<LoadCounts>;
  /** Resolves after `count` more operations succeeded after this call. Rejects after `timeoutMs` (60 s). */
  successes(count: number, timeoutMs?: number): Promise<void>;
  /**
   * Resolves once every worker's last `count` operations succeeded, all begun after this call: each
   * client is served again, not only the load as a whole. Rejects after `timeoutMs` (30 s).
   */
  everyWorkerServed(count: number, timeoutMs?: number): Promise<void>;
  /** Operations that failed or hung so far (clear errors, other errors and hangs together). */
  failures(): number;
}

/** How long the waits below last by default: far beyond any failover the tests force (seconds). */
const SUCCESSES_WITHIN_MS = 60_000;
const SERVED_AGAIN_WITHIN_MS = 30_000;

/**
 * A promise that `register` hands its resolve to, rejected with `explain()` after `timeoutMs`: a load
 * that is never served again is a failure to report, not a test that waits forever.
 */
function withDeadline(timeoutMs: number, explain: () => string, register: (resolve: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(explain())), timeoutMs);
    register(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function startLoad(options: {
  workers: number;
  operation: (worker: number, sequence: number) => Promise<void>;
  isClear: (error: unknown) => boolean;
  hangAfterMs: number;
  /** Between a worker's operations, so a failed one does not spin. */
  pauseMs?: number;
}): Load {
  const counts: LoadCounts = { ok: 0, clearErrors: 0, otherErrors: [], hangs: 0, recovered: true, longestOutageMs: 0, lastRecoveryAt: undefined };
  let running = true;
  let waiters: Array<{ target: number; resolve: () => void }> = [];
  const summary = () => `${counts.ok} answered, ${counts.clearErrors} clear errors, ${counts.otherErrors.length} other errors, ${counts.hangs} hung`;
  const lastOutcomes: boolean[][] = [];
  // Per worker: successes in a row among operations begun after the last everyWorkerServed call.
  const streaks: number[] = Array.from({ length: options.workers }, () => 0);
  // Per worker: why its last operation failed, so a worker never served again says why.
  const lastFailures: Array<string | undefined> = Array.from({ length: options.workers }, () => undefined);
  let servedSince = Infinity;
  let servedWaiter: { count: number; resolve: () => void } | undefined;
  const workers = Array.from({ length: options.workers }, async (_, worker) => {
    lastOutcomes[worker] = [];
    // Start of this worker's current run of failures, if it is in one.
    let unservedSince: number | undefined;
    for (let sequence = 0; running; sequence += 1) {
      const began = Date.now();
      let hung = false;
      const watchdog = setTimeout(() => {
        hung = true;
        counts.hangs += 1;
      }, options.hangAfterMs);
      let succeeded = false;
      try {
        await options.operation(worker, sequence);
        succeeded = true;
        counts.ok += 1;
        waiters = waiters.filter((waiter) => (counts.ok >= waiter.target ? void waiter.resolve() : true));
      } catch (error) {
        lastFailures[worker] = (error instanceof Error ? error.message : String(error)).slice(0, 160);
        if (options.isClear(error)) counts.clearErrors += 1;
        else counts.otherErrors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
      } finally {
        clearTimeout(watchdog);
      }
      if (hung) succeeded = false;
      if (!succeeded) unservedSince ??= began;
      else if (unservedSince !== undefined) {
        const at = Date.now();
        counts.longestOutageMs = Math.max(counts.longestOutageMs, at - unservedSince);
        counts.lastRecoveryAt = Math.max(counts.lastRecoveryAt ?? 0, at);
        unservedSince = undefined;
      }
      lastOutcomes[worker] = [...lastOutcomes[worker]!, succeeded].slice(-3);
      if (began >= servedSince) streaks[worker] = succeeded ? streaks[worker]! + 1 : 0;
      if (servedWaiter && streaks.every((streak) => streak >= servedWaiter!.count)) servedWaiter.resolve();
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? (succeeded ? 0 : 50)));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      counts.recovered = lastOutcomes.every((outcomes) => outcomes.length > 0 && outcomes.every(Boolean));
      return counts;
    },
    successes(count: number, timeoutMs = SUCCESSES_WITHIN_MS) {
      return withDeadline(timeoutMs, () => `${count} more operations did not succeed within ${timeoutMs} ms (${summary()})`, (resolve) => {
        waiters.push({ target: counts.ok + count, resolve });
      });
    },
    failures() {
      return counts.clearErrors + counts.otherErrors.length + counts.hangs;
    },
    everyWorkerServed(count: number, timeoutMs = SERVED_AGAIN_WITHIN_MS) {
      servedSince = Date.now();
      streaks.fill(0);
      return withDeadline(timeoutMs, () => `not every worker was served ${count} times in a row within ${timeoutMs} ms (streaks ${streaks.join(', ')}; last failures: ${lastFailures.map((why, worker) => `${worker}: ${why ?? 'none'}`).join('; ')})`, (resolve) => {
        servedWaiter = {
          count,
          resolve: () => {
            servedWaiter = undefined;
            resolve();
          },
        };
      });
    },
  };
}
