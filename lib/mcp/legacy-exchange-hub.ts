import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';

/** JSON-RPC code for "the endpoint went away"; the transport range -32000..-32099 is the server's own. */
const ENDPOINT_STOPPED = -32000;
const RESOURCE_NOT_FOUND_2026 = -32602;
const RESOURCE_NOT_FOUND_2025 = -32002;

interface Route {
  readonly exchange: Transport;
  /** The id the client gave the request; the shared server only ever sees the hub's own number. */
  readonly clientId: RequestId;
}

/**
 * Lets one long-lived SDK `Server` answer every stateless 2025-era exchange of an endpoint.
 *
 * Each HTTP request keeps the SDK's own per-request transport (header checks, batches, assembling
 * the JSON answer); the hub is the shared server's single transport. Requests are renumbered on
 * their way in, because every stateless client counts its ids from the same start and the server
 * tracks in-flight requests by id; answers are routed back, under the client's id, to the exchange
 * they came from. Building a `Server` per call (handler maps, closures, a schema validator) was
 * the largest share of the memory a pending call holds.
 */
export class LegacyExchangeHub implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private lastId = 0;
  private closed = false;
  private readonly routes = new Map<number, Route>();

  /** Requests that reached the shared server and have not been answered yet. */
  get openRequests(): number {
    return this.routes.size;
  }

  async start(): Promise<void> {}

  /** Answers what is still open (the shared server drops it once closed), then closes. */
  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.routes.values()];
    this.routes.clear();
    await Promise.allSettled(open.map(({ exchange, clientId }) => sendStopped(exchange, clientId)));
    this.onclose?.();
  }

  /** The id the client used for the request the shared server knows as `hubId`. */
  clientRequestId(hubId: RequestId): RequestId | undefined {
    return typeof hubId === 'number' ? this.routes.get(hubId)?.clientId : undefined;
  }

  /**
   * Writes a request of the server's own (a flow asking the client) on the event stream of the
   * exchange that holds `hubId`. Rejects when that exchange has already ended.
   */
  async sendRequest(hubId: RequestId, message: JSONRPCMessage): Promise<void> {
    const route = typeof hubId === 'number' ? this.routes.get(hubId) : undefined;
    if (!route) throw new Error('the call has ended');
    await route.exchange.send(message, { relatedRequestId: route.clientId });
  }

  /** Feeds one per-request transport's messages to the shared server. */
  attach(exchange: Transport): void {
    exchange.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      if (isJSONRPCRequest(message)) {
        // A request that raced the endpoint's stop: the closed server would never answer it.
        if (this.closed) return void sendStopped(exchange, message.id).catch(() => undefined);
        const hubId = ++this.lastId;
        this.routes.set(hubId, { exchange, clientId: message.id });
        this.onmessage?.({ ...message, id: hubId }, extra);
      } else if (isJSONRPCNotification(message)) {
        // Cancellation and progress name a request by the client's id, which means nothing here, and a
        // stateless exchange cannot reach a request made in another one anyway.
        if (message.method === 'notifications/cancelled' || message.method === 'notifications/progress') return;
        this.onmessage?.(message, extra);
      }
      // Responses: the shared server sends stateless clients no requests, so nothing awaits one.
    };
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isAnswer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const hubId = isAnswer ? message.id : options?.relatedRequestId;
    if (typeof hubId !== 'number') return;
    const route = this.routes.get(hubId);
    // Nothing waits for it (the hub was closed in between): there is no one to tell.
    if (!route) return;
    if (!isAnswer) {
      await route.exchange.send(message, { ...options, relatedRequestId: route.clientId });
      return;
    }
    this.routes.delete(hubId);
    const answer = isJSONRPCErrorResponse(message) ? withLegacyErrorCode(message) : message;
    await route.exchange.send({ ...answer, id: route.clientId }, { relatedRequestId: route.clientId });
  }
}

/**
 * The SDK reports an unknown resource as -32602 with data `{ uri }` on every revision (SEP-2164,
 * the 2026-07-28 rule); the 2025 revisions this hub serves define -32002 for it.
 */
function withLegacyErrorCode(message: JSONRPCErrorResponse): JSONRPCErrorResponse {
  const code = legacyErrorCode(message.error.code, message.error.data);
  return code === message.error.code ? message : { ...message, error: { ...message.error, code } };
}

/** The code a 2025-era client gets for an error the SDK encodes as `code` with `data` (see withLegacyErrorCode). */
export function legacyErrorCode(code: number, data: unknown): number {
  const resourceNotFound = code === RESOURCE_NOT_FOUND_2026 && typeof data === 'object' && data !== null && Object.keys(data).length === 1 && typeof (data as Record<string, unknown>)['uri'] === 'string';
  return resourceNotFound ? RESOURCE_NOT_FOUND_2025 : code;
}

function sendStopped(exchange: Transport, clientId: RequestId): Promise<void> {
  const error = { code: ENDPOINT_STOPPED, message: 'The MCP endpoint stopped before answering; retry the request.' };
  return exchange.send({ jsonrpc: '2.0', id: clientId, error }, { relatedRequestId: clientId });
}
