import type { ServerResponse } from 'node:http';
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../access/access-policy.js';
import type { CatalogView } from './catalog-view.js';
import type { LogLevel } from './log-levels.js';
import type { HangUp, HangUpSignal } from '../core/hang-up.js';

/**
 * One request's facts that the SDK's handlers need but the SDK does not carry: who is calling, and
 * the connection the answer goes back on. They ride in the request's AuthInfo, which the SDK hands
 * to every handler untouched.
 */
export interface Exchange {
  readonly caller: CallerIdentity;
  /** Aborts when the client's connection closes before it has its answer. */
  readonly disconnected: HangUp;
  /** A 2025-era caller's log level, set when its exchange was given a response stream for it. */
  legacyLogLevel?: LogLevel;
  /** Whether a 2025-era exchange answers on an event stream (only such a call can ask the client). */
  legacyStreamed?: boolean;
  /** The client's response: what it has not taken yet bounds the call's notifications (CallStream). */
  readonly response?: ServerResponse;
  /** What this caller may see of the deploy, chosen once when the request was admitted. */
  readonly view?: CatalogView;
}

const EXCHANGE_KEY = 'flowmcp.exchange';

/** The AuthInfo that carries `exchange` to the handlers (the token itself never travels here). */
export function authInfoFor(exchange: Exchange, clientId: string): AuthInfo {
  return { token: '', clientId, scopes: [], extra: { [EXCHANGE_KEY]: exchange } };
}

/** The exchange `authInfoFor` put where the SDK carries it to the handlers. */
export function exchangeOf(handlerCtx: ServerContext): Exchange | undefined {
  return handlerCtx.http?.authInfo?.extra?.[EXCHANGE_KEY] as Exchange | undefined;
}

/** Who is calling and the signal of their hang-up, for a handler (the SDK's own signal when there is no exchange). */
export function callerOf(handlerCtx: ServerContext): { readonly caller: CallerIdentity; readonly signal: HangUpSignal } {
  const exchange = exchangeOf(handlerCtx);
  return { caller: exchange?.caller ?? {}, signal: exchange?.disconnected ?? handlerCtx.mcpReq.signal };
}

/**
 * What the caller of a handler may see: the view chosen when its request was admitted, else (an
 * editor's call, which brings no view) the one `choose` picks for its caller.
 */
export function viewOf(handlerCtx: ServerContext, choose: (caller: CallerIdentity) => CatalogView): CatalogView {
  const exchange = exchangeOf(handlerCtx);
  return exchange?.view ?? choose(exchange?.caller ?? {});
}
