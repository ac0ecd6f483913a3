/** Storage tunables in one frozen place (kept beside the storage layer that alone reads them). */
export const STORAGE_DEFAULTS = Object.freeze({
  keyPrefix: 'mcp',
  /** How often MemoryStore drops expired entries nobody read again. */
  memorySweepIntervalMs: 60_000,
  /** A command without a reply by then fails, so a hung Redis turns into 503s, not hung requests. */
  redisCommandTimeoutMs: 2_000,
  redisConnectTimeoutMs: 5_000,
  /** Reconnect delay grows by this much per attempt... */
  redisRetryStepMs: 200,
  /** ...up to this, and never stops: an outage heals without restarting Node-RED. */
  redisRetryMaxDelayMs: 2_000,
  /** Sentinel mode: a sign-in, token or code write must reach the replicas within this long, else 503... */
  redisReplicaWaitMs: 500,
  /** ...as many as were in sync at any sample (this often) of the last window (see ReplicaQuorum). */
  redisReplicaSampleMs: 1_000,
  redisReplicaWindowMs: 5_000,
  /** How long close() lets QUIT finish before it cuts the socket. */
  redisQuitTimeoutMs: 1_000,
});
