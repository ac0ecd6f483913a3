import { createRequire } from 'node:module';

/** Every tunable in one place, frozen so no caller can change a limit for everyone else. */
export const DEFAULTS = Object.freeze({
  runtimePort: 1881,
  runtimeHost: '127.0.0.1',
  endpointPath: '/mcp',
  serverName: 'node-red-mcp',
  /** Calls one endpoint runs at once; the next one gets JSON-RPC -32000 until a slot frees. */
  maxConcurrentCalls: 32,
  maxConcurrentCallsLimit: 10_000,
  toolTimeoutSeconds: 60,
  toolTimeoutSecondsMax: 86_400,
  /** How long progress can keep a call alive in all; never less than the tool's own time limit. */
  toolMaxDurationSeconds: 600,
  /** Calls one endpoint runs as tasks at once on one Node-RED instance, and per caller. */
  maxTasks: 1_000,
  maxTasksPerCaller: 100,
  /**
   * Tasks the storage keeps for one endpoint at once, running or finished (each for its TTL), across
   * every instance, and for one caller of it: a caller cannot fill the storage that also holds
   * sign-ins. Past either, a new task gets JSON-RPC -32000.
   */
  maxStoredTasks: 10_000,
  maxStoredTasksPerCaller: 1_000,
  maxStoredTasksLimit: 1_000_000,
  /** How long a task and its result are kept, from its creation. */
  taskTtlSeconds: 3_600,
  taskTtlSecondsMax: 7 * 86_400,
  /** Largest result a task keeps (KB); larger ones are shortened with a note, like call results. */
  maxTaskResultKb: 1_024,
  /** How often clients are asked to poll a task. */
  taskPollIntervalMs: 1_000,
  /** Largest POST body an MCP endpoint reads; larger answers 413 before parsing. */
  maxRequestBodyBytes: 256 * 1024,
  /** Deepest nesting of arrays and objects a request body may have (the batch array counts as one). */
  maxRequestJsonDepth: 128,
  /** Largest tool result sent to a client; larger ones are shrunk structurally, with a note. */
  maxResultBytes: 1024 * 1024,
  /**
   * Items per page of tools/list, resources/list, resources/templates/list and prompts/list. Lists
   * this long or shorter are answered in one page, exactly as before pagination existed; longer ones
   * carry a nextCursor.
   */
  listPageSize: 500,
  /** The spec's cap on the values of one completion/complete answer. */
  maxCompletionValues: 100,
  /** Finished calls the editor's MCP sidebar keeps per endpoint, in memory, newest first. */
  recentCallsPerEndpoint: 20,
  /** Endpoints whose recent calls are kept at once; the least recently called is forgotten first. */
  recentCallsEndpoints: 64,
  /** How long a "Try it" call from the editor may wait for its flow before the sidebar gives up. */
  tryItTimeoutSeconds: 120,
  /**
   * Open `subscriptions/listen` streams one endpoint holds (each is a socket and a keep-alive timer);
   * the next is refused with JSON-RPC -32603 until one closes. A client usually keeps one.
   */
  maxListenStreams: 1_000,
  maxListenStreamsLimit: 100_000,
  /**
   * Progress reports and log lines one call may have waiting for its client (bytes not yet taken by
   * the client's connection); past it they are dropped and counted, and the client is told how many
   * at the end of the call. A client that reads keeps up; one that does not costs at most this.
   */
  maxCallStreamBacklogBytes: 1024 * 1024,
  /** How long list-changed news of a deploy waits for a storage connection that is still being made. */
  listChangeRelayWaitMs: 10_000,
  /** How long closing a listener may wait for open connections before they are cut. */
  listenerCloseGraceMs: 2_000,
});

// Reported to MCP clients as the server version; read from the package so it can never drift.
// The path holds both in the repository and in the installed package (dist/lib/core -> package root).
export const PACKAGE_VERSION: string = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
