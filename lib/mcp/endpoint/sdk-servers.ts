import { ProtocolError, Server, WebStandardStreamableHTTPServerTransport, type AuthInfo, type CallToolResult, type RequestId, type ServerCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import { callerKey } from '../../access/caller-key.js';
import { PACKAGE_VERSION } from '../../core/defaults.js';
import type { Logger } from '../../core/logger.js';
import type { TaskManager } from '../../tasks/task-manager.js';
import { callToolViaSdk, type SdkToolCallDependencies } from '../calls/sdk-tool-call.js';
import { hasToolCall, wantsProgress } from '../call-stream.js';
import { registerContentHandlers } from '../content/content-handlers.js';
import type { ContentHandlerDependencies } from '../content/content-types.js';
import { exchangeOf, viewOf, type Exchange } from '../exchange.js';
import { isPlainObject } from '../json-schema.js';
import { LegacyExchangeHub } from '../legacy-exchange-hub.js';
import { isLogLevel, type LogLevelBook } from '../log-levels.js';
import { forbidsBatches, LEGACY_PROTOCOL_VERSIONS } from '../protocol-version.js';
import { registerTaskHandlers, taskCapabilities, type Era } from '../task-handlers.js';
import type { ToolDefinition } from '../tool-definition.js';
import type { Deployed } from './deployed.js';

/** The SDK's options take a mutable array; one copy serves every exchange and server (never per request). */
const LEGACY_VERSIONS_OPTION: string[] = [...LEGACY_PROTOCOL_VERSIONS];

/** What the SDK servers of one endpoint answer from (built once per endpoint). */
export interface SdkServerDependencies {
  readonly serverName: string;
  readonly path: string;
  readonly logger: Logger;
  readonly deployed: Deployed;
  readonly tasks: TaskManager | undefined;
  /** Each caller's log level (`logging/setLevel`): stateless traffic has no session to keep it in. */
  readonly logLevels: LogLevelBook;
  readonly toolCalls: SdkToolCallDependencies;
  readonly content: ContentHandlerDependencies;
}

/**
 * One SDK `Server` with the endpoint's handlers: `tools/list` and `tools/call` from the deploy's
 * catalog (never one registered tool per tool, so building it is constant work), `logging/setLevel`,
 * tasks, and resources and prompts when the deploy has any. `clientRequestId` maps the id the server
 * saw back to the one the client sent.
 */
export function createSdkServer(deps: SdkServerDependencies, era: Era, clientRequestId: (id: RequestId) => RequestId, hub?: LegacyExchangeHub): Server {
  const { deployed, tasks } = deps;
  const content = deployed.content;
  const server = new Server(
    { name: deps.serverName, version: PACKAGE_VERSION },
    {
      capabilities: withExtensions(deployed.capabilities(era === 'modern'), tasks ? taskCapabilities(era) : {}),
      supportedProtocolVersions: LEGACY_VERSIONS_OPTION,
    },
  );
  const view = (handlerCtx: ServerContext) => viewOf(handlerCtx, (caller) => deployed.viewFor(caller));
  if (tasks) {
    registerTaskHandlers(server, era, {
      tasks,
      ownerOf: (handlerCtx) => callerKey(exchangeOf(handlerCtx)?.caller ?? {}),
      mayUse: (tool, handlerCtx) => !view(handlerCtx).tools.withholds(tool),
    });
  }
  server.setRequestHandler('tools/list', (request, handlerCtx) => view(handlerCtx).tools.page(request.params?.cursor));
  // Replaces the SDK's own, which keeps one level per session: stateless traffic has none.
  server.setRequestHandler('logging/setLevel', (request, handlerCtx) => {
    const level = request.params.level;
    if (!isLogLevel(level)) throw new ProtocolError(-32602, `Invalid log level: expected one of debug, info, notice, warning, error, critical, alert, emergency.`);
    deps.logLevels.set(callerKey(exchangeOf(handlerCtx)?.caller ?? {}), level);
    return {};
  });
  const site = { server, era, clientRequestId, hub };
  server.setRequestHandler('tools/call', (request, handlerCtx) => callToolViaSdk(deps.toolCalls, site, view(handlerCtx).tools, request, handlerCtx));
  if (!content.isEmpty) registerContentHandlers(server, { whole: () => deployed.content, of: (handlerCtx) => view(handlerCtx).content }, deps.content, clientRequestId, era === 'modern');
  return server;
}

/**
 * The 2025-era exchanges of one endpoint: one long-lived SDK `Server` answers all of them through a
 * hub (building a server per call was the largest share of a pending call's memory), each request
 * keeping the SDK's own per-request transport for its header checks and JSON answers.
 */
export class LegacyExchanges {
  private hub!: LegacyExchangeHub;
  private server!: Server;

  constructor(private readonly deps: SdkServerDependencies) {
    this.rebuild();
  }

  /**
   * The shared server declares its capabilities when built, so a deploy that adds or removes the
   * first resource or prompt gets a fresh hub and server; calls still open on the old pair are
   * answered through it (the SDK chains handlers on a reused transport, so the hub is not reused).
   */
  rebuild(): void {
    const hub = new LegacyExchangeHub();
    const server = createSdkServer(this.deps, 'legacy', (hubId) => hub.clientRequestId(hubId) ?? hubId, hub);
    server.onerror = (error) => this.deps.logger.debug(`MCP request on ${this.deps.path} refused: ${error.message}`);
    // Connecting to the hub has no asynchronous step that could fail (its start() does nothing).
    void server.connect(hub);
    this.hub = hub;
    this.server = server;
  }

  /** The SDK's 2025 wire projection of a tool result (the direct path answers with it too). */
  projectCallToolResult(result: CallToolResult, outputSchema: ToolDefinition['outputSchema']): CallToolResult {
    return this.server.projectCallToolResult(result, outputSchema);
  }

  /**
   * One stateless 2025-era exchange: the SDK's transport checks and frames it (JSON responses, or a
   * short event stream for a call that may send notifications first), the shared server answers it.
   */
  serve(request: Request, authInfo: AuthInfo, parsedBody: unknown, exchange: Exchange): Promise<Response> {
    if (request.method !== 'POST') {
      // Stateless serving has no sessions to open a stream for or to delete.
      return Promise.resolve(Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, { status: 405, headers: { allow: 'POST' } }));
    }
    const declaredVersion = request.headers.get('mcp-protocol-version');
    if (Array.isArray(parsedBody) && forbidsBatches(declaredVersion)) {
      const message = `Invalid Request: protocol revision ${declaredVersion} takes one JSON-RPC message per POST; batches ended with 2025-03-26`;
      return Promise.resolve(Response.json({ jsonrpc: '2.0', error: { code: -32600, message }, id: null }, { status: 400 }));
    }
    // JSON answers unless this call may send notifications first: a progress token, a caller that
    // chose a log level, or a tool that may ask the client. Only then does the exchange pay for a stream.
    const logLevels = this.deps.logLevels;
    if (!logLevels.isEmpty && hasToolCall(parsedBody)) exchange.legacyLogLevel = logLevels.get(callerKey(exchange.caller));
    const streamed = exchange.legacyLogLevel !== undefined || wantsProgress(parsedBody) || this.asksClient(parsedBody, exchange);
    exchange.legacyStreamed = streamed;
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streamed, supportedProtocolVersions: LEGACY_VERSIONS_OPTION });
    this.hub.attach(transport);
    return transport.handleRequest(request, { authInfo, parsedBody });
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /**
   * Whether a 2025-era body calls a tool that may ask the client, so its answer must be a stream. A
   * tool the caller may not use is answered as an unknown one, in the same JSON framing.
   */
  private asksClient(body: unknown, exchange: Exchange): boolean {
    if (!isPlainObject(body) || body['method'] !== 'tools/call' || !isPlainObject(body['params'])) return false;
    const name = body['params']['name'];
    const tools = (exchange.view ?? this.deps.deployed.viewFor(exchange.caller)).tools;
    return typeof name === 'string' && tools.find(name)?.asks !== undefined;
  }
}

/** Both sets of capabilities, with the extensions each declares (tasks, MCP Apps) kept side by side. */
function withExtensions(declared: ServerCapabilities, more: Record<string, unknown>): ServerCapabilities {
  const extensions = { ...(declared.extensions ?? {}), ...((more['extensions'] as Record<string, object> | undefined) ?? {}) };
  return { ...declared, ...more, ...(Object.keys(extensions).length > 0 ? { extensions } : {}) } as ServerCapabilities;
}
