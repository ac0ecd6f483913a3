/** Tunables of the task layer in one frozen place (the editor's limits are in lib/core/defaults.ts). */
export const TASK_DEFAULTS = Object.freeze({
  /** How often an instance running tasks checks for cancels sent from other instances. */
  checkIntervalMs: 1_000,
  /** The heartbeat is refreshed every this many checks... */
  heartbeatEveryTicks: 3,
  /** ...and lapses this long after the instance stops refreshing it: its working tasks then fail. */
  heartbeatTtlSeconds: 10,
  /** `tasks/result` (2025-11-25) looks at the record at most this often while it waits. */
  resultPollMs: 500,
  /** A task waiting for the client's answers (`tasks/update`) looks at its record this often. */
  answerPollMs: 200,
  /** How many of a caller's most recent tasks `tasks/list` (2025-11-25) can show. */
  listedPerCaller: 100,
  /** `tasks/list` page size. */
  listPageSize: 50,
});
