/** Timing of the refresh grant that the specification fixes; only tests pass other values. */
export const REFRESH_TIMING = Object.freeze({
  /** An identical retry of a rotated token within this window gets the same pair again. */
  graceMs: 30_000,
  /** A second refresh of a token being rotated re-reads storage this often... */
  pollIntervalMs: 25,
  /** ...for at most this long, then answers 503 without touching the session. */
  pollTimeoutMs: 5_000,
  /** A claim older than this belongs to a worker that died; another request may take it over. */
  claimDeadlineMs: 60_000,
  /** A claim its worker could not hand back (storage away) is tried again this often, until the deadline. */
  handBackRetryMs: 250,
  /** Retry-After (seconds) when storage, not the provider, failed or the provider did not say. */
  retryAfterSeconds: 5,
  /** Retry-After (seconds) for a waiter that gave up on another request's rotation. */
  busyRetryAfterSeconds: 1,
  /** A Retry-After longer than this from the provider is not passed on. */
  maxRetryAfterSeconds: 3600,
  /** Access token hashes a session remembers for revocation; older ones only expire. */
  maxTrackedAccessTokens: 16,
});
