import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { DEFAULTS, PACKAGE_VERSION } from '../../core/defaults.js';
import { LogThrottle } from '../../core/log-throttle.js';
import { LegacyInputRelay } from '../../input/legacy-input-relay.js';
import { requestStateSealer } from '../../input/state-key.js';
import { UsedStates } from '../../input/used-states.js';
import { TaskManager } from '../../tasks/task-manager.js';
import { TaskStore } from '../../tasks/task-store.js';
import { callReporter } from '../calls/call-reporter.js';
import type { DirectCallDependencies } from '../calls/direct-tool-call.js';
import { FlowCalls } from '../calls/flow-calls.js';
import type { SdkToolCallDependencies } from '../calls/sdk-tool-call.js';
import type { ToolTaskDependencies } from '../calls/tool-tasks.js';
import type { DirectContentDependencies } from '../content/direct-content.js';
import type { ContentHandlerDependencies } from '../content/content-types.js';
import { LogLevelBook } from '../log-levels.js';
import type { RoundTripStates } from '../round-trips.js';
import { ChangeStreams } from './change-streams.js';
import { Deployed } from './deployed.js';
import type { McpEndpointOptions } from './endpoint-options.js';
import { createSdkServer, LegacyExchanges, type SdkServerDependencies } from './sdk-servers.js';

/** The parts one endpoint is composed of, each built once and shared by the routes that need it. */
export interface EndpointParts {
  /** What the last deploy gave: tools, resources and prompts, the capabilities they declare. */
  readonly deployed: Deployed;
  /** Everything waiting for a flow (calls, reads, prompts, tasks) and the flow's way back to it. */
  readonly flowCalls: FlowCalls;
  readonly tasks: TaskManager | undefined;
  /** Where a 2025-era client's answers cross to the instance whose flow asked. */
  readonly relay: LegacyInputRelay;
  readonly streams: ChangeStreams;
  /** Each caller's log level (`logging/setLevel`): stateless traffic has no session to keep it in. */
  readonly logLevels: LogLevelBook;
  /** The SDK's handler of 2026-07-28 requests (a small server per request). */
  readonly modern: McpHttpHandler;
  /** The 2025-era exchanges, answered by one shared SDK server. */
  readonly legacy: LegacyExchanges;
  /** The SDK's Node adapter, for the 2026-07-28 requests that may stream (listen, discovery). */
  readonly streaming: ReturnType<typeof toNodeHandler>;
  /** What the direct path of plain tool calls takes of the endpoint. */
  readonly direct: DirectCallDependencies;
  /** What the direct path of plain reads and prompts takes of it: the same as their SDK handlers. */
  readonly directContent: DirectContentDependencies;
}

export function buildEndpointParts(options: McpEndpointOptions): EndpointParts {
  const { path, logger } = options;
  const deployed = new Deployed();
  const logLevels = new LogLevelBook();
  const flowCalls = new FlowCalls({ ...options, ...(options.tasks ? { maxTasks: options.tasks.limits.maxTasks } : {}) });
  const taskBroker = flowCalls.taskBroker;
  const tasks = options.tasks && new TaskManager({ store: new TaskStore(options.tasks.store, 'tasks'), endpoint: path, limits: options.tasks.limits, logger, abandon: (id) => taskBroker?.cancel(id) });
  // A state is single-use across the instances that share the endpoint's storage (memory without one).
  const roundStates: RoundTripStates = { sealer: options.requestStates ?? requestStateSealer(), used: new UsedStates(options.answersStore ?? options.tasks?.store) };
  // As many calls may wait for their clients' answers as may run in the flow at once.
  const relay = new LegacyInputRelay({ ...(options.answersStore ? { store: options.answersStore } : {}), logger, maxAsking: options.maxInFlight });
  const streams = new ChangeStreams(path, options.maxStreams ?? DEFAULTS.maxListenStreams, logger, (caller) => deployed.viewFor(caller));
  const report = callReporter(options);
  const taskCalls: ToolTaskDependencies | undefined = tasks && taskBroker && {
    path,
    tasks,
    broker: taskBroker,
    ...(options.onAbandoned ? { onAbandoned: options.onAbandoned } : {}),
    ...(options.measureResponses ? { measureResponses: options.measureResponses } : {}),
  };
  // Calls whose clients do not read their notifications: one line a minute.
  const dropped = new LogThrottle(60_000);
  const toolCalls: SdkToolCallDependencies = {
    path,
    report,
    flowCalls,
    roundStates,
    tasks: taskCalls,
    relay,
    ...(options.onAbandoned ? { onAbandoned: options.onAbandoned } : {}),
    reportDropped: (count) => dropped.warn(logger, 'dropped', `a call on ${path} dropped ${count} progress reports and log lines its client did not read`, (held) => ` (${held} more such calls since the last line)`),
  };
  const content: ContentHandlerDependencies = {
    path,
    roundStates,
    begin: (call, timeoutMs, signal) => flowCalls.beginContent(call, timeoutMs, signal),
    ...(options.onContentFinished ? { onFinished: options.onContentFinished } : {}),
    ...(options.measureContentResponses ? { measureResponses: options.measureContentResponses } : {}),
  };
  const servers: SdkServerDependencies = { serverName: options.serverName, path, logger, deployed, tasks, logLevels, toolCalls, content };
  const legacy = new LegacyExchanges(servers);
  // 2026-07-28 requests go to the SDK's handler; 2025-era ones to the shared server with JSON
  // answers, because the SDK's built-in stateless fallback frames every answer as an SSE stream,
  // which costs a third of the CPU of a call and half the memory of a pending one.
  const modern = createMcpHandler(() => createSdkServer(servers, 'modern', (id) => id), {
    legacy: 'reject',
    maxRequestBodySize: DEFAULTS.maxRequestBodyBytes,
    // A single JSON body unless a handler streams first; ours answer once, so every reply is JSON.
    responseMode: 'auto',
    // The SDK's listen router serves the streams; the endpoint feeds their bus and admits them.
    bus: streams.bus,
    maxSubscriptions: streams.maxStreams,
    onerror: (error) => streams.onSdkError(error),
  });
  const direct: DirectCallDependencies = {
    path,
    serverInfo: { name: options.serverName, version: PACKAGE_VERSION },
    report,
    begin: (tool, args, context, signal, finish, extra) => flowCalls.begin(tool, args, context, signal, finish, extra),
    projectLegacy: (result, outputSchema) => legacy.projectCallToolResult(result, outputSchema),
    reportDropped: toolCalls.reportDropped,
  };
  const streaming = toNodeHandler(modern, { maxRequestBodySize: DEFAULTS.maxRequestBodyBytes });
  const directContent: DirectContentDependencies = { content, serverInfo: direct.serverInfo };
  return { deployed, flowCalls, tasks, relay, streams, logLevels, modern, legacy, streaming, direct, directContent };
}
