/** Something a suite started and stops after its last test: a Node-RED, a provider, a redis-server. */
export interface Stoppable {
  stop(): Promise<unknown>;
}

/**
 * Stops each part that was started, one after the other in the order given (what a suite's `after` hook
 * does); a part its `before` never got to is undefined and skipped.
 */
export async function stopInTurn(...parts: Array<Stoppable | undefined>): Promise<void> {
  for (const part of parts) await part?.stop();
}
