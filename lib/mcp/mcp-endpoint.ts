import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  InMemoryServerEventBus,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type AuthInfo,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
  type ListToolsResult,
  type McpHttpHandler,
  type RequestId,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { AccessPolicy, CallerIdentity } from '../access/access-policy.js';
import { DEFAULTS, PACKAGE_VERSION } from '../core/defaults.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { readJsonRpcBody } from '../http/read-json-rpc-body.js';
import { sendJson, sendJsonRpcError } from '../http/responses.js';
import { bodylessWebRequest } from '../http/web-exchange.js';
import { writeAnyWebResponse } from '../http/write-event-stream.js';
import { CapacityError, ExecutionBroker, type ExecutionOutcome, type ExecutionRequest } from '../execution/broker.js';
import { cancelledRequestId, type CancelReason } from '../execution/cancellation.js';
import { callerKey } from '../access/caller-key.js';
import { openCallStream, hasToolCall, wantsProgress, type CallStream, type LogLine, type ProgressReport } from './call-stream.js';
import { isLogLevel, LogLevelBook, type LogLevel } from './log-levels.js';
import { ContentCatalog } from './content/content-catalog.js';
import { registerContentHandlers, type ContentCall, type ContentFinished, type ContentHandlerDependencies } from './content/content-handlers.js';
import { isPlainObject } from './json-schema.js';
import { LegacyExchangeHub } from './legacy-exchange-hub.js';
import { listChangedEvent, type ListKind } from './list-changes.js';
import { capabilitiesFor } from './server-capabilities.js';
import { narrowListenRequest } from './listen-request.js';
import { ListenShares } from './listen-shares.js';
import { ResourceWatchers } from './resource-watchers.js';
import { LogThrottle } from '../core/log-throttle.js';
import { checkParamHeaders } from './param-headers.js';
import { claimedRevisionOf, forbidsBatches, LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION, protocolVersionOf } from './protocol-version.js';
import { clampResult } from './result-clamp.js';
import { SERVER_BUSY } from './json-rpc-codes.js';
import { ToolCatalog } from './tool-catalog.js';
import { plainLegacyToolCall, plainLegacyToolsListId, plainModernToolCall } from './plain-requests.js';
import { writeJsonRpcAnswerFromHead, writeJsonRpcError } from './json-rpc-answers.js';
import { directlyServedTool, executionContextOf, noStreamToAsk, serveDirectCall, type CallFinish, type DirectCallDependencies, type FlowCallOptions } from './direct-tool-call.js';
import type { Store } from '../storage/store.js';
import { TaskManager, type TaskLimits } from '../tasks/task-manager.js';
import { TaskStore } from '../tasks/task-store.js';
import { registerTaskHandlers, taskCapabilities, type Era } from './task-handlers.js';
import type { InProcessResult, ToolDefinition } from './tool-definition.js';
import type { RoundInput } from '../execution/broker.js';
import { continueRounds, MAX_INPUT_ROUNDS, NOTHING_DECLARED, type AskDecision } from '../input/input-rounds.js';
import { runsAsTask, startToolTask, type ToolTaskDependencies } from './tool-tasks.js';
import { requiredCapabilities, type InputAsk, type InputKind } from '../input/input-requests.js';
import { clientAnswersIn, LegacyInputRelay, MAX_ANSWERS_PER_POST } from '../input/legacy-input-relay.js';
import type { RequestStateSealer, StateBinding } from '../input/request-state.js';
import { requestStateSealer } from '../input/state-key.js';
import { canTake, declaredClientCapabilities, giveBackIfBusy, inputRequiredResult, resumeRound, type RoundTripStates } from './round-trips.js';
import { argumentsDigest } from '../input/arguments-digest.js';
import { UsedStates } from '../input/used-states.js';
import { invalidArgumentsResult, resultFromOutcome, toolError } from './tool-result.js';

/** What the flow-server node sends for each call, besides the payload. */
export interface ExecutionContext extends CallerIdentity {
  readonly endpoint: string;
  readonly tool: string;
  readonly protocolVersion: string;
  readonly requestId: string | number;
  /** Set when the call runs as a task: the id the client polls. */
  readonly taskId?: string;
  /** Set for a call relayed to an edge site (hub side): where it went. Never reaches a local flow. */
  readonly relay?: { readonly site: string; readonly tool: string };
  /** Set on an edge for a call a hub relayed: the hub endpoint it came through. */
  readonly relayedFrom?: string;
}

/** Where a hub endpoint sends the calls of edge tools (lib/edge/edge-hub.ts). */
export interface EdgeRelay {
  send(request: ExecutionRequest, target: { readonly site: string; readonly tool: string }, caller: CallerIdentity, protocolVersion: string): void;
  withdraw(executionId: string, reason: string): void;
  /** A tool of a site that went away (and is not back): its site, and what to tell the caller. */
  offline(toolName: string): { readonly site: string; readonly message: string } | undefined;
}

export type CallOutcome =
  | 'success'
  | 'error'
  | 'invalid_arguments'
  | 'unknown_tool'
  | 'busy'
  | 'timeout'
  | 'stopped'
  | 'cancelled'
  | 'unauthenticated'
  | 'forbidden'
  /** A 2026-07-28 call whose flow asked the client: the questions were its answer. */
  | 'input_required'
  /** Refused before the flow ran: the client cannot take what the tool must ask it (-32021). */
  | 'missing_capability';

export interface CallFinished {
  readonly endpoint: string;
  /** The tool name, or `unknown` for names the endpoint does not serve (bounded for metric labels). */
  readonly tool: string;
  readonly outcome: CallOutcome;
  readonly caller: CallerIdentity;
  readonly durationMs: number;
  /** Size of the JSON result sent back (0 when the call ended without a result). */
  readonly responseBytes: number;
  /** `flow` for a tool answered by a flow; an in-process tool's own mode (get_flow's); else `unknown`. */
  readonly mode: string;
  /** Set by in-process tools (get_flow): how many nodes it scanned, whether it used a cache. */
  readonly scannedNodes?: number;
  readonly cached?: boolean;
  /** How many times the flow asked the client during this call (2026-07-28: the rounds so far). */
  readonly inputRounds?: number;
  /** The edge site a relayed tool's call went to (hub side). */
  readonly site?: string;
}

export interface McpEndpointOptions {
  readonly serverName: string;
  readonly path: string;
  readonly access: AccessPolicy;
  readonly maxInFlight: number;
  /** Open `subscriptions/listen` streams this endpoint holds at most; the next is refused (-32603). */
  readonly maxStreams?: number;
  readonly logger: Logger;
  /** Told once per tools/call, whatever its outcome (audit log, telemetry). Must not throw or block. */
  readonly onCallFinished?: (event: CallFinished) => void;
  /** Whether anyone reads `responseBytes` now (sizing a large result costs a JSON serialisation). */
  readonly measureResponses?: () => boolean;
  /** Hands one call to the flow. Must not block; the answer comes back through `settle`. */
  readonly execute: (request: ExecutionRequest, context: ExecutionContext) => void;
  /** Told once when a call the flow is working on ends without its answer (see CancelReason). */
  readonly onAbandoned?: (executionId: string, reason: CancelReason, context: ExecutionContext) => void;
  /** Hands one resource read, prompt or completion to the flow, like `execute`. */
  readonly executeContent?: (executionId: string, call: ContentCall) => void;
  /** Where task records live (the endpoint's storage) and the endpoint's task limits. */
  readonly tasks?: { readonly store: Store; readonly limits: TaskLimits };
  /** Told once when a read, prompt or completion the flow is working on ends without its answer. */
  readonly onContentAbandoned?: (executionId: string, reason: CancelReason, call: ContentCall) => void;
  /** Told once per resources/read, prompts/get and completion/complete, whatever the outcome. */
  readonly onContentFinished?: (event: ContentFinished) => void;
  /** Whether anyone reads a read's, prompt's or completion's `responseBytes` now. */
  readonly measureContentResponses?: () => boolean;
  /**
   * Seals the `requestState` of 2026-07-28 calls whose flow asks the client; instances that share
   * its key resume each other's calls. A key of this process alone when absent.
   */
  readonly requestStates?: RequestStateSealer;
  /** Where a 2025-era client's answer to a flow's question crosses to the instance that asked. */
  readonly answersStore?: Store;
  /**
   * Whether the hot requests — plain tool calls of both eras, the first page of a 2025-era tools/list —
   * are answered directly rather than through the SDK (default true). Both paths give the same
   * answers; tests turn it off to compare them.
   */
  readonly directAnswers?: boolean;
}

/** What became of a progress report or log line from the flow. */
export type ProgressDelivery = 'sent' | 'kept_alive' | 'unknown' | 'not_increasing';
export type LogDelivery = 'sent' | 'filtered' | 'unknown';
/** What became of a flow's `mcp-resource-updated`: sent to open streams, nobody listening, or no such resource. */
export type UpdateDelivery = 'sent' | 'unwatched' | 'unknown';

/** The SDK's options take a mutable array; one copy serves every exchange and server (never per request). */
const LEGACY_VERSIONS_OPTION: string[] = [...LEGACY_PROTOCOL_VERSIONS];
/** How much longer an edge lets a relayed call run than the hub that relayed it waits. */
const RELAY_GRACE_MS = 1_000;
/** Per-request facts the SDK carries through untouched from `handle` to the tool handler. */
const EXCHANGE_KEY = 'flowmcp.exchange';

interface Exchange {
  readonly caller: CallerIdentity;
  /** Aborts when the client's connection closes before it has its answer. */
  readonly disconnected: AbortSignal;
  /** A 2025-era caller's log level, set when its exchange was given a response stream for it. */
  legacyLogLevel?: LogLevel;
  /** Whether a 2025-era exchange answers on an event stream (only such a call can ask the client). */
  legacyStreamed?: boolean;
  /** The client's response: what it has not taken yet bounds the call's notifications (CallStream). */
  readonly response?: ServerResponse;
}

/**
 * One MCP endpoint: the access check, the official SDK's Streamable HTTP handling (both protocol
 * eras, stateless), and `tools/list` / `tools/call` answered from a catalog built at deploy.
 * 2026-07-28 requests get a small SDK `Server` per request (the SDK's handler builds it); 2025-era
 * requests share one `Server` per endpoint through a hub. Either way registering handlers is
 * constant work, because the tools themselves are never registered one by one. The hot requests —
 * plain tool calls of both eras and the first page of a 2025-era tools/list — are answered before
 * any of that (direct-tool-call.ts), with the same checks and answers.
 */
export class McpEndpoint {
  readonly path: string;
  private catalog: ToolCatalog = ToolCatalog.empty;
  private content: ContentCatalog = ContentCatalog.empty;
  private readonly contentDependencies: ContentHandlerDependencies;
  private readonly broker: ExecutionBroker<ExecutionContext | ContentCall, CallStream>;
  /** Calls running as tasks: their own limit, so hour-long jobs never take the slots of quick calls. */
  private readonly taskBroker: ExecutionBroker<ExecutionContext> | undefined;
  private readonly tasks: TaskManager | undefined;
  /** What a call that runs as a task needs of this endpoint (built once; undefined without tasks). */
  private readonly taskDependencies: ToolTaskDependencies | undefined;
  private readonly logLevels = new LogLevelBook();
  private readonly mcp: McpHttpHandler;
  /** The SDK's Node adapter, for the 2026-07-28 requests that may stream (built once). */
  private readonly streamingAdapter: ReturnType<typeof toNodeHandler>;
  private legacyHub!: LegacyExchangeHub;
  private legacyServer!: Server;
  private readonly options: McpEndpointOptions;
  /** What `subscriptions/listen` streams hear: list changes after a deploy, a flow's resource updates. */
  private readonly events: InMemoryServerEventBus;
  private readonly watchers = new ResourceWatchers();
  /** Each caller's share of the open streams, so one caller cannot take them all. */
  private readonly listenShares: ListenShares;
  /** A client hammering a full endpoint would otherwise write a warning per attempt. */
  private readonly streamLimitLog = new LogThrottle(60_000);
  /** Calls whose clients do not read their notifications: one line a minute. */
  private readonly droppedLog = new LogThrottle(60_000);
  private readonly reportDropped = (count: number): void =>
    this.droppedLog.warn(this.options.logger, 'dropped', `a call on ${this.path} dropped ${count} progress reports and log lines its client did not read`, (held) => ` (${held} more such calls since the last line)`);
  /** Declared per era: only 2026-07-28 has a stream to deliver change notifications on. */
  private modernCapabilities: ServerCapabilities = capabilitiesFor(ContentCatalog.empty, true);
  private legacyCapabilities: ServerCapabilities = capabilitiesFor(ContentCatalog.empty, false);
  private readonly roundStates: RoundTripStates;
  private readonly relay: LegacyInputRelay;
  /** Set on a hub endpoint: where calls to edge tools go. */
  private edges: EdgeRelay | undefined;
  private readonly directAnswers: boolean;
  private readonly directCalls: DirectCallDependencies;

  constructor(options: McpEndpointOptions) {
    this.options = options;
    this.path = options.path;
    this.directAnswers = options.directAnswers ?? true;
    this.directCalls = {
      path: options.path,
      serverInfo: { name: options.serverName, version: PACKAGE_VERSION },
      report: (caller, disconnected, startedAt) => this.callReporter(caller, disconnected, startedAt),
      begin: (tool, args, context, signal, finish, extra) => this.beginFlowCall(tool, args, context, signal, finish, extra),
      projectLegacy: (result, outputSchema) => this.legacyServer.projectCallToolResult(result, outputSchema),
    };
    // A state is single-use across the instances that share the endpoint's storage (memory without one).
    this.roundStates = { sealer: options.requestStates ?? requestStateSealer(), used: new UsedStates(options.answersStore ?? options.tasks?.store) };
    // As many calls may wait for their clients' answers as may run in the flow at once.
    this.relay = new LegacyInputRelay({ ...(options.answersStore ? { store: options.answersStore } : {}), logger: options.logger, maxAsking: options.maxInFlight });
    this.broker = new ExecutionBroker({
      maxInFlight: options.maxInFlight,
      // Resource reads, prompts and flow-answered completions share the tools' broker: one concurrency cap, the same time limits.
      dispatch: (request, context) => {
        if (!('kind' in context)) {
          if (!context.relay) return options.execute(request, context);
          if (!this.edges) throw new Error('this endpoint relays to no edge sites');
          return this.edges.send(request, context.relay, context, context.protocolVersion);
        }
        if (!options.executeContent) throw new Error('this endpoint has no flow for resources and prompts');
        options.executeContent(request.executionId, context);
      },
      // Reads, prompts and completions are told apart from tool calls by their `kind`, each with its own message.
      onAbandoned: (executionId: string, reason: CancelReason, context: ExecutionContext | ContentCall) => {
        if (!('kind' in context)) {
          // A relayed call ran on an edge: that edge's flow is the one to tell.
          if (context.relay) this.edges?.withdraw(executionId, reason);
          else options.onAbandoned?.(executionId, reason, context);
        }
        else options.onContentAbandoned?.(executionId, reason, context);
      },
    });
    if (options.tasks) {
      const limits = options.tasks.limits;
      const taskBroker = new ExecutionBroker<ExecutionContext>({
        maxInFlight: limits.maxTasks,
        dispatch: (request, context) => options.execute(request, context),
        ...(options.onAbandoned ? { onAbandoned: options.onAbandoned } : {}),
      });
      this.taskBroker = taskBroker;
      this.tasks = new TaskManager({
        store: new TaskStore(options.tasks.store, 'tasks'),
        endpoint: options.path,
        limits,
        logger: options.logger,
        abandon: (executionId) => taskBroker.cancel(executionId),
      });
      this.taskDependencies = {
        path: options.path,
        tasks: this.tasks,
        broker: taskBroker,
        ...(options.onAbandoned ? { onAbandoned: options.onAbandoned } : {}),
        ...(options.measureResponses ? { measureResponses: options.measureResponses } : {}),
      };
    }
    this.contentDependencies = {
      path: options.path,
      roundStates: this.roundStates,
      begin: (call, timeoutMs, signal) => this.broker.begin({ ...brokerFieldsOf(call), timeoutMs, signal, context: call }),
      ...(options.onContentFinished ? { onFinished: options.onContentFinished } : {}),
      ...(options.measureContentResponses ? { measureResponses: options.measureContentResponses } : {}),
      exchangeOf: (handlerCtx) => {
        const exchange = exchangeOf(handlerCtx);
        return { caller: exchange?.caller ?? {}, signal: exchange?.disconnected ?? handlerCtx.mcpReq.signal };
      },
    };
    this.events = new InMemoryServerEventBus((error) => options.logger.warn(`a change notification on ${options.path} failed: ${error.message}`));
    // 2026-07-28 requests go to the SDK's handler; 2025-era requests are served below with JSON
    // responses, because the SDK's built-in stateless fallback frames every answer as an SSE stream,
    // which costs a third of the CPU of a call and half the memory of a pending one.
    const maxStreams = options.maxStreams ?? DEFAULTS.maxListenStreams;
    this.listenShares = new ListenShares(maxStreams);
    this.mcp = createMcpHandler(() => this.createServer('modern', (id) => id), {
      legacy: 'reject',
      maxRequestBodySize: DEFAULTS.maxRequestBodyBytes,
      // A single JSON body unless a handler streams first; ours answer once, so every reply is JSON.
      responseMode: 'auto',
      // The SDK's listen router serves `subscriptions/listen` (acknowledgement first, filtering, keep-alive,
      // graceful close on stop); the endpoint only feeds its bus.
      bus: this.events,
      maxSubscriptions: maxStreams,
      onerror: (error) => {
        if (!error.message.includes('subscription limit reached')) return options.logger.debug(`MCP request on ${options.path} refused: ${error.message}`);
        const line = `subscriptions/listen on ${options.path} refused: ${maxStreams} streams are already open`;
        this.streamLimitLog.warn(options.logger, 'limit', line, (held) => ` (${held} more refused since the last line)`);
      },
    });
    this.streamingAdapter = toNodeHandler(this.mcp, { maxRequestBodySize: DEFAULTS.maxRequestBodyBytes });
    this.connectLegacyServer();
  }

  /**
   * The shared 2025-era server declares its capabilities when built, so a deploy that adds or removes
   * the first resource or prompt gets a fresh hub and server; calls still open on the old pair are
   * answered through it (the SDK chains handlers on a reused transport, so the hub is not reused).
   */
  private connectLegacyServer(): void {
    const hub = new LegacyExchangeHub();
    const server = this.createServer('legacy', (hubId) => hub.clientRequestId(hubId) ?? hubId, hub);
    server.onerror = (error) => this.options.logger.debug(`MCP request on ${this.options.path} refused: ${error.message}`);
    // Connecting to the hub has no asynchronous step that could fail (its start() does nothing).
    void server.connect(hub);
    this.legacyHub = hub;
    this.legacyServer = server;
  }

  /** The tools this endpoint serves right now (the last deploy's, plus live edge tools on a hub). */
  get tools(): ToolCatalog {
    return this.catalog;
  }

  get toolCount(): number {
    return this.catalog.size;
  }

  setCatalog(catalog: ToolCatalog): void {
    this.catalog = catalog;
  }

  get resourceCount(): number {
    return this.content.resourceCount;
  }

  get promptCount(): number {
    return this.content.promptCount;
  }

  /** Resources and prompts of this deploy; rebuilt with the tool catalog, never per request. */
  setContent(content: ContentCatalog): void {
    const capabilitiesChanged = content.capabilityKey !== this.content.capabilityKey;
    this.content = content;
    if (!capabilitiesChanged) return;
    this.modernCapabilities = capabilitiesFor(content, true);
    this.legacyCapabilities = capabilitiesFor(content, false);
    this.connectLegacyServer();
  }

  /** Tells the open streams that asked for them that these lists changed (after a deploy here or elsewhere). */
  listsChanged(kinds: readonly ListKind[]): void {
    for (const kind of kinds) this.events.publish(listChangedEvent(kind));
  }

  /**
   * A flow's news that a resource changed, for the open streams that subscribed to its URI. The URI
   * must name a resource this endpoint serves (a fixed URI, or one a template matches).
   */
  resourceUpdated(uri: string): UpdateDelivery {
    if (!this.content.findResource(uri)) return 'unknown';
    if (!this.watchers.isWatched(uri)) return 'unwatched';
    this.events.publish({ kind: 'resource_updated', uri });
    return 'sent';
  }

  /** The listener route for this endpoint's path. */
  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // The SDK's own cancellation does not fire for a stateless client that simply hangs up, so the
    // connection itself tells the broker to release the call. Listened to from the first byte: a
    // hang-up during the access check (a token looked up in a slow Redis) happens before any later
    // listener could hear it, and the call would then hold its slot until the tool's time limit.
    const disconnect = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) disconnect.abort();
    });
    const decision = await this.options.access.check(req);
    if (!decision.allowed) {
      req.resume();
      decision.reject(res);
      if (decision.refusal && isToolCall(decision.parsedBody)) {
        this.options.onCallFinished?.({ endpoint: this.path, tool: 'unknown', mode: 'unknown', outcome: decision.refusal, caller: {}, durationMs: 0, responseBytes: 0 });
      }
      return;
    }
    const exchange: Exchange = { caller: decision.caller, disconnected: disconnect.signal, response: res };
    const authInfo: AuthInfo = { token: '', clientId: decision.caller.client ?? 'local', scopes: [], extra: { [EXCHANGE_KEY]: exchange } };
    // Read and parse the body once, whatever the access mode (OAuth already had to).
    let parsedBody = decision.parsedBody;
    if (parsedBody === undefined && req.method === 'POST') {
      const read = await readJsonRpcBody(req, DEFAULTS.maxRequestBodyBytes);
      if ('reject' in read) return read.reject(res);
      parsedBody = read.body;
    }
    // Stateless: a cancel arrives on its own request, so it is matched to the caller's pending call here.
    const cancelled = cancelledRequestId(parsedBody);
    if (cancelled !== undefined) {
      this.cancelFor(decision.caller, cancelled);
      res.writeHead(202).end();
      return;
    }
    // A 2025-era client answering a question a flow asked on a call's stream.
    const answers = clientAnswersIn(parsedBody);
    if (answers !== undefined) return this.takeAnswers(answers, decision.caller, res);
    // The first page of tools/list is a constant per deploy: 2025-era clients get its prebuilt bytes.
    if (this.directAnswers) {
      const listId = plainLegacyToolsListId(req, parsedBody);
      if (listId !== undefined) return writeJsonRpcAnswerFromHead(res, this.catalog.listAnswerHead, listId);
      // A plain tools/call of a flow tool, the hot path, is served without the SDK's per-request machinery.
      const modern = req.headers['mcp-protocol-version'] === MODERN_PROTOCOL_VERSION;
      const plainCall = modern ? plainModernToolCall(req, parsedBody) : plainLegacyToolCall(req, parsedBody);
      const direct = plainCall && directlyServedTool(this.catalog, plainCall, this.logLevels.isEmpty ? undefined : this.logLevels.get(callerKey(decision.caller)));
      if (direct) return serveDirectCall(this.directCalls, plainCall, direct, exchange, res);
    }
    let request: Request;
    try {
      request = bodylessWebRequest(req);
    } catch {
      return sendJsonRpcError(res, 400, -32600, 'Invalid request: the Host header does not form a valid URL.');
    }
    const legacy = await isLegacyRequest(request, parsedBody);
    if (!legacy && this.refuseParamHeaderMismatch(req, res, parsedBody)) return;
    if (legacy || isToolsRequest(parsedBody)) {
      // These answers are single JSON bodies, or a short event stream for a call that asked for
      // progress or log lines, so they need none of the SDK adapter's machinery, nor its second copy
      // of the body and the extra abort signals it holds for every pending call.
      const response = await (legacy ? this.serveLegacy(request, authInfo, parsedBody, exchange) : this.mcp.fetch(request, { authInfo, parsedBody })).catch(
        (error: unknown) => {
          this.options.logger.warn(`MCP request on ${this.path} failed: ${describeError(error)}`);
          return Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }, { status: 500 });
        },
      );
      return writeAnyWebResponse(res, response);
    }
    const listen = narrowListenRequest(parsedBody, (uri) => this.content.findResource(uri) !== undefined);
    if (listen) {
      const release = this.listenShares.take(callerKey(decision.caller));
      if (!release) return this.refuseListenPastShare(res, listen.body['id']);
      res.once('close', release);
      parsedBody = listen.body;
      if (listen.unknown.length > 0) {
        this.options.logger.debug(`subscriptions/listen on ${this.path}: ${listen.unknown.length} resource URI(s) left out of the acknowledgement, no resource here has them`);
      }
      // Counted while the stream is open, so an update nobody listens to is known as such.
      if (listen.uris.length > 0) res.once('close', this.watchers.watch(listen.uris));
    }
    // Anything else of 2026-07-28 (discovery, subscription streams) through the SDK's own adapter.
    // The SDK adapter hands `req.auth` to the handler as its authInfo.
    (req as IncomingMessage & { auth?: AuthInfo }).auth = authInfo;
    await this.streamingAdapter(req, res, parsedBody);
  };

  /** The tool `name` as this deploy serves it, if it does. */
  toolNamed(name: string): ToolDefinition | undefined {
    return this.catalog.find(name);
  }

  /** What `tools/list` shows right now (the catalog of the last deploy). */
  get toolListing(): ListToolsResult {
    return this.catalog.listResult;
  }

  /**
   * One `tools/call` from the editor's sidebar, through the same SDK server, catalog, argument check,
   * broker, flow and result checks as a client's call, and told to `onCallFinished` like one. Only the
   * HTTP listener and the access policy are left out: the admin route has decided who may call.
   * Resolves to the JSON-RPC response (a result, or a protocol error such as an unknown tool).
   */
  async callFromEditor(name: string, args: Record<string, unknown>, caller: CallerIdentity, signal: AbortSignal): Promise<EditorCallResponse> {
    const exchange: Exchange = { caller, disconnected: signal };
    const authInfo: AuthInfo = { token: '', clientId: caller.client ?? 'editor', scopes: [], extra: { [EXCHANGE_KEY]: exchange } };
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, _meta: EDITOR_ENVELOPE },
    };
    // The host is never dialled: the SDK reads the request's headers and method, not its origin.
    const request = new Request(`http://editor.invalid${this.path}`, {
      method: 'POST',
      headers: { ...EDITOR_HEADERS, 'mcp-name': name },
      body: JSON.stringify(body),
    });
    const response = await this.mcp.fetch(request, { authInfo, parsedBody: body });
    const text = await response.text();
    const parsed: unknown = text.trim().startsWith('{') ? JSON.parse(text) : parseEventStreamAnswer(text);
    if (isPlainObject(parsed) && isPlainObject(parsed['result'])) return { result: parsed['result'] as CallToolResult };
    const error = isPlainObject(parsed) && isPlainObject(parsed['error']) ? parsed['error'] : { code: -32603, message: `HTTP ${response.status}` };
    return { error: { code: Number(error['code']), message: String(error['message']) } };
  }

  /** The flow's answer for one call; 'unknown' when nothing waits for that executionId. */
  settle(executionId: string, answer: { result?: unknown; error?: unknown }) {
    const settled = this.broker.settle(executionId, answer);
    return settled === 'unknown' && this.taskBroker ? this.taskBroker.settle(executionId, answer) : settled;
  }

  /** Makes this a hub endpoint: calls to edge tools (those with `relay`) go through `edges`. */
  relayTo(edges: EdgeRelay | undefined): void {
    this.edges = edges;
  }

  /** An edge site went away: its pending calls end now with `message`, not at their time limits. */
  failRelayed(site: string, message: string): void {
    const ids = this.broker.findWhere((context) => !('kind' in context) && context.relay?.site === site);
    for (const id of ids) this.broker.settle(id, { result: { content: [{ type: 'text', text: message }], isError: true } });
  }

  /**
   * One call a hub relayed to this edge endpoint, under the hub's executionId: the same argument
   * check, broker (concurrency cap, time limit), flow and result checks as a local call. Resolves with
   * the result to send back, or undefined when the hub withdrew the call (nobody waits for it).
   */
  async runRelayed(call: { readonly id: string; readonly tool: string; readonly arguments: Record<string, unknown>; readonly caller: CallerIdentity; readonly hub: string; readonly protocolVersion: string }): Promise<CallToolResult | undefined> {
    const tool = this.catalog.find(call.tool);
    if (!tool || tool.runInProcess) return toolError(`Tool "${call.tool}" is not offered by this edge any more (it was redeployed).`);
    const problems = tool.checkArguments(call.arguments);
    if (problems.length > 0) return invalidArgumentsResult(call.tool, problems);
    const { subject, email, groups, client } = call.caller;
    const context: ExecutionContext = {
      ...(typeof subject === 'string' ? { subject } : {}),
      ...(typeof email === 'string' ? { email } : {}),
      ...(Array.isArray(groups) ? { groups: groups.filter((group): group is string => typeof group === 'string') } : {}),
      ...(typeof client === 'string' ? { client } : {}),
      endpoint: this.path,
      tool: call.tool,
      protocolVersion: call.protocolVersion,
      requestId: call.id,
      relayedFrom: call.hub,
    };
    let outcome: ExecutionOutcome;
    try {
      // A second more than the hub allows: the hub gives up first and withdraws the call, so the flow
      // hears `cancelled` (not a time-out of its own) and sends no answer the hub would drop.
      const grace = RELAY_GRACE_MS;
      outcome = await this.broker.begin({ executionId: call.id, toolName: call.tool, arguments: call.arguments, timeoutMs: tool.timeoutMs + grace, maxTotalMs: (tool.maxDurationMs ?? tool.timeoutMs) + grace, context });
    } catch (error) {
      if (error instanceof CapacityError) return toolError(`Server busy: ${error.limit} tool calls are already running on this edge; retry shortly.`);
      throw error;
    }
    if (outcome.kind === 'cancelled') return undefined;
    return resultFromOutcome(tool, outcome, DEFAULTS.maxResultBytes);
  }

  /** The hub withdrew a relayed call: the flow gets `mcp-tool-cancel` (reason `cancelled`). */
  withdrawRelayed(executionId: string): void {
    this.broker.cancel(executionId);
  }

  /** The flow asks the client instead of answering (`mcp-tool-input`); 'unknown' when nothing waits. */
  ask(executionId: string, ask: InputAsk) {
    const asked = this.broker.ask(executionId, ask);
    return asked === 'unknown' && this.taskBroker ? this.taskBroker.ask(executionId, ask) : asked;
  }

  /**
   * The flow's progress for one call: it must increase; it restarts the call's time limit and reaches
   * the client when the client sent a progress token.
   */
  progress(executionId: string, report: ProgressReport): ProgressDelivery {
    let check: ReturnType<typeof this.broker.progress> = this.broker.progress(executionId, report.progress);
    // A task's progress keeps it alive like a call's; its client polls, so there is no stream to tell.
    if (check.status === 'unknown' && this.taskBroker) check = this.taskBroker.progress(executionId, report.progress) as typeof check;
    if (check.status !== 'accepted') return check.status;
    return check.stream?.progress(report) ? 'sent' : 'kept_alive';
  }

  /** A log line from the flow for one call, sent when the client asked for its level. */
  log(executionId: string, line: LogLine): LogDelivery {
    const call = this.broker.find(executionId);
    if (!call) return this.taskBroker?.find(executionId) ? 'filtered' : 'unknown';
    return call.stream?.log(line) ? 'sent' : 'filtered';
  }

  /**
   * A client's `notifications/cancelled`. Request ids are the client's own and stateless clients all
   * count from the same start, so the id is matched together with who sent it (callerKey): on OAuth
   * endpoints only the sign-in that started a call can cancel it. When the id still names more than
   * one call (Local access, two clients), nothing is cancelled rather than the wrong call.
   */
  private cancelFor(caller: CallerIdentity, requestId: string | number): void {
    const key = callerKey(caller);
    const matches = this.broker.findWhere((pending) => {
      // A resource read or prompt carries its caller and request id one level down.
      const context = 'kind' in pending ? pending.context : pending;
      return context.requestId === requestId && callerKey(context) === key;
    });
    if (matches.length === 1) this.broker.cancel(matches[0]!);
    else if (matches.length > 1) this.options.logger.debug(`cancel for request ${String(requestId)} on ${this.path} ignored: it names ${matches.length} calls`);
  }

  /**
   * Fails every pending call with `reason` and tears down in-flight modern exchanges; open
   * `subscriptions/listen` streams get the graceful end (a result for the listen request), so their
   * clients know to listen again rather than treat it as a dropped connection.
   */
  async stop(reason: string): Promise<number> {
    const failed = this.broker.stopAll(reason) + (this.taskBroker?.stopAll(reason) ?? 0);
    // Let the "stopped" results reach their clients before in-flight exchanges are torn down.
    if (failed > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    this.relay.stop();
    await Promise.all([this.mcp.close(), this.legacyServer.close(), this.tasks?.stop()]);
    return failed;
  }

  /**
   * One stateless 2025-era exchange: the SDK's transport checks and frames it (JSON responses), and
   * the endpoint's shared server answers it through the hub.
   */
  private serveLegacy(request: Request, authInfo: AuthInfo, parsedBody: unknown, exchange: Exchange): Promise<Response> {
    if (request.method !== 'POST') {
      // Stateless serving has no sessions to open a stream for or to delete.
      return Promise.resolve(
        Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, { status: 405, headers: { allow: 'POST' } }),
      );
    }
    const declaredVersion = request.headers.get('mcp-protocol-version');
    if (Array.isArray(parsedBody) && forbidsBatches(declaredVersion)) {
      const message = `Invalid Request: protocol revision ${declaredVersion} takes one JSON-RPC message per POST; batches ended with 2025-03-26`;
      return Promise.resolve(Response.json({ jsonrpc: '2.0', error: { code: -32600, message }, id: null }, { status: 400 }));
    }
    // JSON answers unless this call may send notifications first: a progress token, or a caller that
    // chose a log level. Only then does the exchange pay for a stream.
    if (!this.logLevels.isEmpty && hasToolCall(parsedBody)) exchange.legacyLogLevel = this.logLevels.get(callerKey(exchange.caller));
    const streamed = exchange.legacyLogLevel !== undefined || wantsProgress(parsedBody) || this.asksClient(parsedBody);
    exchange.legacyStreamed = streamed;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !streamed,
      supportedProtocolVersions: LEGACY_VERSIONS_OPTION,
    });
    this.legacyHub.attach(transport);
    return transport.handleRequest(request, { authInfo, parsedBody });
  }

  /** -32603 for a `subscriptions/listen` of a caller that holds its share of the streams already (the SDK's code for a full endpoint). */
  private refuseListenPastShare(res: ServerResponse, id: unknown): void {
    const { perCaller, maxStreams } = this.listenShares;
    this.streamLimitLog.warn(this.options.logger, 'share', `subscriptions/listen on ${this.path} refused: a caller already holds its ${perCaller} streams`, (held) => ` (${held} more refused since the last line)`);
    const message = `Subscription limit reached: this caller already has ${perCaller} change-notification streams open on ${this.path}, the most one caller may hold (a tenth of the endpoint's ${maxStreams}). Close one to listen again.`;
    if (typeof id === 'string' || typeof id === 'number') return writeJsonRpcError(res, id, { code: -32603, message });
    sendJsonRpcError(res, 200, -32603, message);
  }

  /** Whether a 2025-era body calls a tool that may ask the client, so its answer must be a stream. */
  private asksClient(body: unknown): boolean {
    if (!isPlainObject(body) || body['method'] !== 'tools/call' || !isPlainObject(body['params'])) return false;
    const name = body['params']['name'];
    return typeof name === 'string' && this.catalog.find(name)?.asks !== undefined;
  }

  /**
   * Hands each answer to the question it answers, here or on the instance that asked (lib/input).
   * Accepted (202) when every answer went somewhere; 400 with -32602 naming each answer that does not
   * fit its question (nothing of the POST is delivered), with -32600 for more answers than a batch
   * may hold or when one answers nothing this instance knows of.
   */
  private async takeAnswers(answers: ReturnType<typeof clientAnswersIn> & object, caller: CallerIdentity, res: ServerResponse): Promise<void> {
    if (answers.length > MAX_ANSWERS_PER_POST) return sendJsonRpcError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_ANSWERS_PER_POST} messages`);
    const outcome = await this.relay.answerAll(answers, callerKey(caller)).catch(() => ({ delivered: 0, forwarded: 0, unknown: answers.length }));
    if ('invalid' in outcome) {
      this.options.logger.debug(`MCP answer on ${this.path} refused: ${outcome.invalid.length} answer(s) do not fit the question they answer`);
      const named = outcome.invalid.slice(0, 5).map(({ id, problem }) => `request ${JSON.stringify(id)}: ${problem}`);
      return sendJsonRpcError(res, 400, ProtocolErrorCode.InvalidParams, `Invalid answer, nothing was delivered: ${named.join('; ')}.`);
    }
    if (outcome.unknown === 0 && answers.length > 0) return void res.writeHead(202).end();
    this.options.logger.debug(`MCP answer on ${this.path} refused: ${outcome.unknown || 'no'} answer(s) matched a question a flow asked`);
    sendJsonRpcError(res, 400, -32600, 'Invalid request: no question a flow asked is waiting for this answer (it was answered already, timed out, or came from another caller).');
  }

  /**
   * Answers 400 / -32020 for a 2026-07-28 `tools/call` whose `Mcp-Param-*` headers are missing or
   * disagree with its arguments, before dispatch, as the SDK's own `McpServer` does. Costs one
   * catalog lookup, and nothing more for tools that declare no such header.
   */
  private refuseParamHeaderMismatch(req: IncomingMessage, res: ServerResponse, body: unknown): boolean {
    if (!isPlainObject(body) || body['method'] !== 'tools/call') return false;
    const params = body['params'];
    const name = isPlainObject(params) ? params['name'] : undefined;
    const declarations = typeof name === 'string' ? this.catalog.find(name)?.paramHeaders : undefined;
    // A request naming a revision the palette does not serve gets the SDK's version error instead.
    if (!declarations || claimedRevisionOf(params) !== MODERN_PROTOCOL_VERSION) return false;
    const mismatch = checkParamHeaders(declarations, (params as Record<string, unknown>)['arguments'], req.headers);
    if (!mismatch) return false;
    this.options.logger.debug(`MCP request on ${this.path} refused: ${mismatch.message}`);
    const id = body['id'];
    const error = { code: mismatch.code, message: mismatch.message, data: mismatch.data };
    sendJson(res, mismatch.httpStatus, { jsonrpc: '2.0', error, id: typeof id === 'string' || typeof id === 'number' ? id : null });
    return true;
  }

  /** `clientRequestId` maps the id the server saw back to the one the client sent. */
  private createServer(era: Era, clientRequestId: (id: RequestId) => RequestId, hub?: LegacyExchangeHub): Server {
    const content = this.content;
    const tasks = this.tasks;
    const server = new Server(
      { name: this.options.serverName, version: PACKAGE_VERSION },
      {
        capabilities: { ...(era === 'modern' ? this.modernCapabilities : this.legacyCapabilities), ...(tasks ? taskCapabilities(era) : {}) },
        supportedProtocolVersions: LEGACY_VERSIONS_OPTION,
      },
    );
    if (tasks) registerTaskHandlers(server, era, { tasks, ownerOf: (handlerCtx) => callerKey(exchangeOf(handlerCtx)?.caller ?? {}) });
    server.setRequestHandler('tools/list', (request) => this.catalog.page(request.params?.cursor));
    // Replaces the SDK's own, which keeps one level per session: stateless traffic has none.
    server.setRequestHandler('logging/setLevel', (request, handlerCtx) => {
      const level = request.params.level;
      if (!isLogLevel(level)) throw new ProtocolError(-32602, `Invalid log level: expected one of debug, info, notice, warning, error, critical, alert, emergency.`);
      const exchange = exchangeOf(handlerCtx);
      this.logLevels.set(callerKey(exchange?.caller ?? {}), level);
      return {};
    });
    server.setRequestHandler('tools/call', (request, handlerCtx) => this.callTool(server, era, this.catalog, request, handlerCtx, clientRequestId, hub));
    if (!content.isEmpty) registerContentHandlers(server, content, this.contentDependencies, clientRequestId, era === 'modern');
    return server;
  }

  private async callTool(
    server: Server,
    era: Era,
    catalog: ToolCatalog,
    request: CallToolRequest,
    handlerCtx: ServerContext,
    clientRequestId: (id: RequestId) => RequestId,
    hub: LegacyExchangeHub | undefined,
  ): Promise<CallToolResult> {
    const startedAt = performance.now();
    const exchange = exchangeOf(handlerCtx);
    const finish = this.callReporter(exchange?.caller ?? {}, exchange?.disconnected, startedAt);

    const name = request.params.name;
    const tool = catalog.find(name);
    if (!tool) {
      // A tool of an edge site that has just gone away: the model is told the site is offline.
      const offline = this.edges?.offline(name);
      if (offline) return finish(undefined, 'error', toolError(offline.message), { tool: name, site: offline.site })!;
      // A protocol fault, not a tool failure: MCP and the official SDK answer it with -32602.
      finish(undefined, 'unknown_tool', undefined);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}". Call tools/list to see the tools this endpoint offers.`);
    }
    const args = request.params.arguments ?? {};
    // The SDK has already refused arguments that are not an object (InvalidParams).
    const problems = tool.checkArguments(args);
    if (problems.length > 0) {
      const mode = tool.modeOfRefused?.(args);
      return finish(tool, 'invalid_arguments', invalidArgumentsResult(name, problems), mode !== undefined ? { mode } : {})!;
    }
    // A stateless call ends with its connection: a hang-up is the only cancellation that reaches it,
    // and stopping the endpoint fails pending calls itself, so one signal is enough (no per-call
    // AbortSignal.any on the hot path).
    const signal = exchange?.disconnected ?? handlerCtx.mcpReq.signal;

    if (tool.runInProcess) {
      const answer: InProcessResult = await tool
        .runInProcess(args, AbortSignal.any([signal, AbortSignal.timeout(tool.timeoutMs)]))
        .catch(() => ({ result: toolError(`Tool "${name}" failed unexpectedly.`) }));
      const projected = server.projectCallToolResult(clampResult(answer.result, DEFAULTS.maxResultBytes), tool.outputSchema);
      const extra = {
        ...(answer.mode !== undefined ? { mode: answer.mode } : {}),
        ...(answer.scannedNodes !== undefined ? { scannedNodes: answer.scannedNodes } : {}),
        ...(answer.cached !== undefined ? { cached: answer.cached } : {}),
      };
      // A hang-up ends an in-process tool as it ends a flow's call: cancelled, not failed.
      const outcome = exchange?.disconnected.aborted ? 'cancelled' : answer.result.isError ? 'error' : 'success';
      return finish(tool, outcome, projected, extra)!;
    }

    const context = executionContextOf(exchange?.caller ?? {}, this.path, tool, protocolVersionOf(handlerCtx), clientRequestId(handlerCtx.mcpReq.id));
    // A tool that asks the client, on 2026-07-28: a client that cannot take what it must ask is
    // refused before the flow runs, and a retry carries the answers of the round before.
    let resumed: RoundInput | undefined;
    let binding: StateBinding | undefined;
    let release: (() => Promise<void>) | undefined;
    if (tool.asks && era === 'modern') {
      binding = { endpoint: this.path, target: `tool:${name}`, caller: callerKey(exchange?.caller ?? {}), arguments: argumentsDigest(args) };
      if (tool.asksRequired) this.refuseIncapableClient(tool, tool.asks, handlerCtx, finish);
      const resumption = await resumeRound(handlerCtx, this.roundStates, binding);
      if ('reask' in resumption) {
        const result = inputRequiredResult(resumption.reask, resumption.round, this.roundStates, binding, resumption.answered) as unknown as CallToolResult;
        return finish(tool, 'input_required', result, { inputRounds: resumption.round })!;
      }
      resumed = resumption.input;
      release = resumption.release;
    }
    // A tool that asks before it becomes a task runs its first round as a plain call: its questions
    // come back as input_required, and the retry that brings the answers starts the task.
    // What a 2026-07-28 client declared it can be asked (only looked up for tools that ask).
    const clientCapabilities = tool.asks ? declaredClientCapabilities(handlerCtx) : undefined;
    const taskDependencies = this.taskDependencies;
    // Answers sent unasked (round 0) are no retry: the call has not asked yet.
    const asTask = taskDependencies !== undefined && runsAsTask(tool, era, request, handlerCtx) && !(tool.asksBeforeTask && era === 'modern' && (resumed?.round ?? 0) === 0);
    if (asTask) {
      return (await startToolTask(taskDependencies, server, era, tool, args, context, exchange?.caller ?? {}, { first: resumed, clientCapabilities }, (outcome, result, bytes) => {
        finish(tool, outcome, undefined, { durationMs: performance.now() - startedAt, responseBytes: bytes });
        return result;
      }).catch(giveBackIfBusy(release))) as CallToolResult;
    }
    const stream = openCallStream(handlerCtx, exchange?.legacyLogLevel, exchange?.response, this.reportDropped);
    // The last round that ran: telemetry counts the rounds of a call whose flow asked.
    let inputRounds: number | undefined;
    const begin = async (input: RoundInput | undefined): Promise<ExecutionOutcome> => {
      if (input !== undefined) inputRounds = input.round;
      return this.beginFlowCall(tool, args, context, signal, finish, {
        ...(stream ? { stream, progressToken: stream.progressToken !== undefined } : {}),
        ...(stream?.logLevel !== undefined ? { logLevel: stream.logLevel } : {}),
        ...(input !== undefined ? { input } : {}),
        ...(clientCapabilities !== undefined ? { clientCapabilities } : {}),
      });
    };
    let outcome = await begin(resumed).catch(giveBackIfBusy(release));
    if (outcome.kind === 'input') {
      // Only a flow that asked gets here: the loop, its checks and its closures cost plain calls nothing.
      const deliver = era === 'modern' ? async (ask: InputAsk): Promise<AskDecision> => ({ handOver: ask }) : this.askOnStream(tool, context, exchange, handlerCtx, hub);
      const ended = await continueRounds(
        {
          begin,
          deliver,
          declared: tool.asks ?? NOTHING_DECLARED,
          ...(clientCapabilities !== undefined ? { clientCan: (kind: InputKind) => canTake(clientCapabilities, kind) } : {}),
          ...(era === 'legacy' && !exchange?.legacyStreamed ? { cannotAsk: noStreamToAsk(name) } : {}),
          maxRounds: MAX_INPUT_ROUNDS,
          what: `Tool "${name}"`,
        },
        outcome,
        resumed,
      );
      if (ended.kind === 'handOver') {
        await stream?.end();
        const result = inputRequiredResult(ended.ask, ended.round, this.roundStates, binding!) as unknown as CallToolResult;
        return finish(tool, 'input_required', result, { inputRounds: ended.round })!;
      }
      outcome = ended;
      // A call that ended while its question was out still asked once.
      inputRounds = Math.max(inputRounds ?? 0, 1);
    }
    await stream?.end();
    const result = server.projectCallToolResult(resultFromOutcome(tool, outcome, DEFAULTS.maxResultBytes), tool.outputSchema);
    const status = outcome.kind === 'answered' ? (result.isError ? 'error' : 'success') : outcome.kind;
    return finish(tool, status, result, inputRounds !== undefined ? { inputRounds } : {})!;
  }

  /**
   * Telemetry and audit for one `tools/call`: the returned `finish` reports how the call ended, once,
   * and hands the result back.
   */
  private callReporter(caller: CallerIdentity, disconnected: AbortSignal | undefined, startedAt: number): CallFinish {
    const observer = this.options.onCallFinished;
    return (tool, outcome, result, extra = {}, resultJson) => {
      observer?.({
        endpoint: this.path,
        tool: tool?.name ?? 'unknown',
        mode: tool && !tool.runInProcess ? 'flow' : 'unknown',
        outcome,
        caller,
        durationMs: performance.now() - startedAt,
        ...(tool?.relay ? { site: tool.relay.site } : {}),
        // Only measured when someone listens (sizing a large result is not free), and never for a
        // client that hung up: nothing was sent to it.
        responseBytes: result && !disconnected?.aborted && this.options.measureResponses?.() ? Buffer.byteLength(resultJson ?? JSON.stringify(result)) : 0,
        ...extra,
      });
      return result;
    };
  }

  /**
   * Hands one round of a call to the flow; a full broker is reported as `busy` and answered with
   * SERVER_BUSY. Not an async function: a pending call holds one suspended frame fewer.
   */
  private beginFlowCall(
    tool: ToolDefinition,
    args: Record<string, unknown>,
    context: ExecutionContext,
    signal: AbortSignal,
    finish: CallFinish,
    extra: FlowCallOptions = {},
  ): Promise<ExecutionOutcome> {
    try {
      return this.broker.begin({ toolName: tool.name, arguments: args, timeoutMs: tool.timeoutMs, maxTotalMs: tool.maxDurationMs, signal, context, ...extra });
    } catch (error) {
      if (!(error instanceof CapacityError)) return Promise.reject(error);
      finish(tool, 'busy', undefined);
      return Promise.reject(new ProtocolError(SERVER_BUSY, `Server busy: ${error.limit} tool calls are already running on ${this.path}; retry shortly.`));
    }
  }

  /**
   * How a 2025-era call asks: each question goes out on the call's own event stream as a request of
   * the client, and the next round starts when every answer is in (from this instance or another).
   * A call whose answers never come ends at the tool's time limit, like one whose flow never answers.
   */
  private askOnStream(tool: ToolDefinition, context: ExecutionContext, exchange: Exchange | undefined, handlerCtx: ServerContext, hub: LegacyExchangeHub | undefined) {
    const hubId = handlerCtx.mcpReq.id;
    const signal = exchange?.disconnected ?? handlerCtx.mcpReq.signal;
    return async (ask: InputAsk, round: number, executionId: string): Promise<AskDecision> => {
      if (!hub) return { ended: { kind: 'stopped', reason: 'the endpoint has no stream to ask on' } };
      const asked = await this.relay.ask(ask.requests, callerKey(exchange?.caller ?? {}), (message) => hub.sendRequest(hubId, message as JSONRPCMessage), signal, tool.timeoutMs);
      if ('full' in asked) {
        // Told to the flow like any question that could not be asked: it may answer without, or try later.
        const message = `Server busy: ${asked.full} calls on ${this.path} are already waiting for their clients' answers; nothing was asked.`;
        return { next: { round, inputError: { code: SERVER_BUSY, message, keys: Object.keys(ask.requests) }, ...(ask.state !== undefined ? { state: ask.state } : {}) } };
      }
      if ('ended' in asked) {
        // The flow finished its round by asking; it still learns that the call it may be holding on to ended.
        this.options.onAbandoned?.(executionId, asked.ended === 'cancelled' ? 'disconnected' : asked.ended, context);
        switch (asked.ended) {
          case 'timeout':
            return { ended: { kind: 'timeout', timeoutMs: tool.timeoutMs, client: true } };
          case 'cancelled':
            return { ended: { kind: 'cancelled' } };
          case 'stopped':
            return { ended: { kind: 'stopped', reason: 'the endpoint stopped while the client was being asked' } };
        }
      }
      return { next: { round, inputResponses: asked.answers, ...(ask.state !== undefined ? { state: ask.state } : {}) } };
    };
  }

  /** -32021 before the flow runs, for a 2026-07-28 client that cannot take what the tool must ask. */
  private refuseIncapableClient(tool: ToolDefinition, kinds: ReadonlySet<InputKind>, handlerCtx: ServerContext, finish: (tool: ToolDefinition, outcome: CallOutcome, result: undefined) => unknown): void {
    const declared = declaredClientCapabilities(handlerCtx) ?? {};
    const missing = [...kinds].filter((kind) => !canTake(declared, kind));
    if (missing.length === 0) return;
    finish(tool, 'missing_capability', undefined);
    throw new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `Missing required client capability: tool "${tool.name}" asks the client for ${missing.join(' and ')}, which this request does not declare.`, {
      requiredCapabilities: requiredCapabilities(missing),
    });
  }
}

/** The per-request facts `handle` put where the SDK carries them to the handlers. */
function exchangeOf(handlerCtx: ServerContext): Exchange | undefined {
  return handlerCtx.http?.authInfo?.extra?.[EXCHANGE_KEY] as Exchange | undefined;
}

/** The broker's name and arguments for a read, prompt or completion (what its log lines name). */
function brokerFieldsOf(call: ContentCall): { toolName: string; arguments: Record<string, unknown> } {
  switch (call.kind) {
    case 'resource-read':
      return { toolName: call.uri, arguments: call.variables };
    case 'prompt-get':
      return { toolName: call.name, arguments: call.arguments };
    case 'completion':
      return { toolName: call.ref.type === 'ref/prompt' ? call.ref.name : call.ref.uri, arguments: { [call.argument.name]: call.argument.value } };
  }
}

/** What the editor's call got back: the tool's result, or the JSON-RPC error a client would get. */
export type EditorCallResponse = { readonly result: CallToolResult } | { readonly error: { readonly code: number; readonly message: string } };

/** The 2026-07-28 envelope of an editor call: it names the editor as its client. */
const EDITOR_ENVELOPE = Object.freeze({
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'node-red-editor', version: PACKAGE_VERSION },
  'io.modelcontextprotocol/clientCapabilities': {},
});
const EDITOR_HEADERS = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
  'mcp-method': 'tools/call',
});

/** The last `data:` line of an event stream that carries the answer (a call that streamed first). */
function parseEventStreamAnswer(text: string): unknown {
  const data = text.split('\n').filter((line) => line.startsWith('data:')).pop();
  return data ? JSON.parse(data.slice(5)) : undefined;
}

/** One `tools/call` or `tools/list` request (not a batch). */
function isToolsRequest(body: unknown): boolean {
  const method = isPlainObject(body) ? body['method'] : undefined;
  return method === 'tools/call' || method === 'tools/list';
}

function isToolCall(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => (message as { method?: unknown } | null)?.method === 'tools/call');
}
