import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { bodylessWebRequest } from '../../http/web-exchange.js';
import type { Exchange } from '../exchange.js';

/** One request that passed the access check, with its body read once (undefined for GET and DELETE). */
export class Inbound {
  private web: Request | null | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    public body: unknown,
    readonly exchange: Exchange,
    readonly authInfo: AuthInfo,
  ) {}

  /** The request as the SDK's web handlers take it, built once when a route needs it; null when its Host header forms no URL. */
  webRequest(): Request | null {
    if (this.web === undefined) {
      try {
        this.web = bodylessWebRequest(this.req);
      } catch {
        this.web = null;
      }
    }
    return this.web;
  }
}

/**
 * One kind of request an endpoint serves: `recognise` says whether a request is of this kind (and
 * hands what it found to `serve`), `serve` answers it. Recognisers of the hot kinds are cheap and
 * synchronous; only the SDK's own era check is asynchronous.
 */
export interface RequestRoute<T = unknown> {
  readonly kind: string;
  recognise(inbound: Inbound): T | undefined | Promise<T | undefined>;
  serve(inbound: Inbound, found: T): Promise<void> | void;
}

export function route<T>(kind: string, recognise: RequestRoute<T>['recognise'], serve: RequestRoute<T>['serve']): RequestRoute {
  return { kind, recognise, serve } as RequestRoute;
}
