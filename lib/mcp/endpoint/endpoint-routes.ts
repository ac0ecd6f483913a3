import type { IncomingMessage } from 'node:http';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { callerKey } from '../../access/caller-key.js';
import { describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { cancelledRequestId } from '../../execution/cancellation.js';
import { sendJsonRpcError } from '../../http/responses.js';
import { writeAnyWebResponse } from '../../http/write-event-stream.js';
import { clientAnswersIn } from '../../input/legacy-input-relay.js';
import { directlyServedTool, serveDirectCall } from '../calls/direct-tool-call.js';
import { writeJsonRpcAnswerFromHead } from '../json-rpc-answers.js';
import { isPlainObject } from '../json-schema.js';
import { narrowListenRequest } from '../listen-request.js';
import { plainLegacyToolCall, plainLegacyToolsListId, plainModernToolCall, plainModernToolsListId, plainPromptGet, plainResourceRead } from '../plain-requests.js';
import { serveDirectPrompt, serveDirectRead } from '../content/direct-content.js';
import { MODERN_PROTOCOL_VERSION } from '../protocol-version.js';
import type { CatalogView } from '../catalog-view.js';
import type { EndpointParts } from './endpoint-parts.js';
import { takeClientAnswers } from './legacy-answers.js';
import { refuseParamHeaderMismatch } from './param-header-refusal.js';
import { route, type Inbound, type RequestRoute } from './request-routes.js';

export interface RouteSettings {
  readonly path: string;
  readonly logger: Logger;
  /** Whether plain tool calls, reads and prompts and the first tools/list page skip the SDK (see McpEndpointOptions). */
  readonly directAnswers: boolean;
}

/**
 * The request kinds an endpoint serves, in the order they are recognised; the first that recognises
 * a request serves it. The hot kinds come first, so a plain tool call is recognised by four cheap
 * checks and served without the SDK's per-request machinery. This table is the endpoint's table of
 * contents: each line names a kind, how it is told apart, and the part that answers it.
 */
export function endpointRoutes(parts: EndpointParts, settings: RouteSettings): readonly RequestRoute[] {
  const { path, logger } = settings;
  const { relay, legacy, modern, streams } = parts;
  return [
    //    request kind                          recognised by                                 served by
    route('cancel (notifications/cancelled)',   (i) => cancelledRequestId(i.body),            (i, id) => cancel(parts, i, id)),
    route('2025 answers to a flow\'s questions', (i) => clientAnswersIn(i.body),              (i, answers) => takeClientAnswers(relay, path, logger, answers, i.exchange.caller, i.res)),
    ...(settings.directAnswers ? [
      route('2025 tools/list, first page',      (i) => plainLegacyToolsListId(i.req, i.body), (i, id) => writeJsonRpcAnswerFromHead(i.res, viewOf(parts, i).tools.listAnswerHead, id)),
      route('2026-07-28 tools/list, first page', (i) => plainModernToolsListId(i.req, i.body), (i, id) => writeJsonRpcAnswerFromHead(i.res, viewOf(parts, i).tools.modernListAnswerHead(parts.direct.serverInfo), id)),
      route('plain tools/call',                 (i) => plainFlowToolCall(parts, i),           (i, [call, tool]) => serveDirectCall(parts.direct, call, tool, i.exchange, i.res)),
      route('plain resources/read',             (i) => plainRead(parts, i),                   (i, [read, content]) => serveDirectRead(parts.directContent, content, read, i.exchange, i.res)),
      route('plain prompts/get',                (i) => plainPrompt(parts, i),                 (i, [get, content]) => serveDirectPrompt(parts.directContent, content, get, i.exchange, i.res)),
    ] : []),
    route('request without a valid Host',       (i) => (i.webRequest() === null ? true : undefined), (i) => sendJsonRpcError(i.res, 400, -32600, 'Invalid request: the Host header does not form a valid URL.')),
    route('2025-era exchange',                  (i) => legacyOrUndefined(i),                  (i, request) => answerWeb(settings, i, legacy.serve(request, i.authInfo, i.body, i.exchange))),
    route('2026-07-28 tools request',           (i) => (isToolsRequest(i.body) ? i.webRequest()! : undefined), (i, request) => {
      if (refuseParamHeaderMismatch(viewOf(parts, i).tools, i.req, i.res, i.body, logger, path)) return;
      return answerWeb(settings, i, modern.fetch(request, { authInfo: i.authInfo, parsedBody: i.body }));
    }),
    route('2026-07-28 subscriptions/listen',    (i) => narrowListenRequest(i.body, (uri) => viewOf(parts, i).content.findResource(uri) !== undefined), (i, listen) => {
      // Served when its caller has a stream of its share left; the refusal is answered otherwise.
      // Opened as its caller's, so each deploy tells it only of changes in its own view.
      if (streams.admit(listen, i.exchange.caller, i.res)) return streams.bus.openFor(i.exchange.caller, () => stream(parts, i, listen.body));
    }),
    route('any other 2026-07-28 request',       () => true,                                   (i) => stream(parts, i, i.body)),
  ];
}

/** Stateless: a cancel arrives on its own request, so it is matched to the caller's pending call here. */
function cancel(parts: EndpointParts, inbound: Inbound, requestId: string | number): void {
  parts.flowCalls.cancelFor(inbound.exchange.caller, requestId);
  inbound.res.writeHead(202).end();
}

/** A plain tools/call of a flow tool that needs nothing only the SDK's path provides (direct-tool-call.ts). */
function plainFlowToolCall(parts: EndpointParts, inbound: Inbound) {
  const { req, body } = inbound;
  const call = req.headers['mcp-protocol-version'] === MODERN_PROTOCOL_VERSION ? plainModernToolCall(req, body) : plainLegacyToolCall(req, body);
  if (!call) return undefined;
  const logLevel = parts.logLevels.isEmpty ? undefined : parts.logLevels.get(callerKey(inbound.exchange.caller));
  const tool = directlyServedTool(viewOf(parts, inbound).tools, call, logLevel);
  return tool && ([call, tool] as const);
}

/** A plain resources/read on an endpoint that has resources (else the SDK answers: method not found), with the caller's catalog. */
function plainRead(parts: EndpointParts, inbound: Inbound) {
  const read = parts.deployed.content.capabilities.resources ? plainResourceRead(inbound.req, inbound.body) : undefined;
  return read && ([read, viewOf(parts, inbound).content] as const);
}

/** A plain prompts/get on an endpoint that has prompts, with the caller's catalog. */
function plainPrompt(parts: EndpointParts, inbound: Inbound) {
  const get = parts.deployed.content.capabilities.prompts ? plainPromptGet(inbound.req, inbound.body) : undefined;
  return get && ([get, viewOf(parts, inbound).content] as const);
}

/** What the caller of a request may see: chosen when the endpoint admitted it, else for its caller now. */
function viewOf(parts: EndpointParts, inbound: Inbound): CatalogView {
  return inbound.exchange.view ?? parts.deployed.viewFor(inbound.exchange.caller);
}

/**
 * Writes a web answer: single JSON bodies, or a short event stream for a call that asked for
 * progress or log lines, so they need none of the SDK adapter's machinery, nor its second copy of
 * the body and the extra abort signals it holds for every pending call.
 */
async function answerWeb(settings: RouteSettings, inbound: Inbound, answer: Promise<Response>): Promise<void> {
  const response = await answer.catch((error: unknown) => {
    settings.logger.warn(`MCP request on ${settings.path} failed: ${describeError(error)}`);
    return Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }, { status: 500 });
  });
  return writeAnyWebResponse(inbound.res, response);
}

/** Anything else of 2026-07-28 (discovery, subscription streams) through the SDK's own Node adapter. */
function stream(parts: EndpointParts, inbound: Inbound, body: unknown): Promise<void> {
  // The SDK adapter hands `req.auth` to the handler as its authInfo.
  (inbound.req as IncomingMessage & { auth?: unknown }).auth = inbound.authInfo;
  return parts.streaming(inbound.req, inbound.res, body);
}

/** The web request of a 2025-era exchange (the SDK's own era check), or undefined for a 2026-07-28 one. */
async function legacyOrUndefined(inbound: Inbound): Promise<Request | undefined> {
  const request = inbound.webRequest()!;
  return (await isLegacyRequest(request, inbound.body)) ? request : undefined;
}

/** One `tools/call` or `tools/list` request (not a batch). */
function isToolsRequest(body: unknown): boolean {
  const method = isPlainObject(body) ? body['method'] : undefined;
  return method === 'tools/call' || method === 'tools/list';
}
