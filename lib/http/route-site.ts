import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpPaletteError } from '../core/errors.js';
import { sendJson } from './responses.js';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface MountOptions {
  /**
   * Serve the route only if the listener really bound a loopback address. A name such as
   * `mcp.localhost` passes as loopback by its spelling, but the system resolver decides what it
   * binds; Local access must not be served on whatever address that turned out to be.
   */
  readonly loopbackOnly?: boolean;
  /**
   * Told when the route stopped serving because a later deploy gave its path to a route of the
   * host (only on Node-RED's server; an own listener has no other routes).
   */
  readonly onYield?: (error: McpPaletteError) => void;
}

/** What a mount returns: the only way to take the route down again. */
export interface MountedRoute {
  readonly path: string;
  unmount(): Promise<void>;
}

/**
 * A place where routes are served: a listener of this package's own on one port, or the HTTP
 * server of the Node-RED that hosts it. Endpoints, OAuth routes and discovery documents mount here
 * without knowing which.
 */
export interface RouteSite {
  /** Equal for every site that serves the same set of paths (auth bridges and roots are keyed by it). */
  readonly key: string;
  /** The port of an own listener; undefined on Node-RED's own server (messages say so instead). */
  readonly port: number | undefined;
  mount(path: string, handler: RouteHandler, options?: MountOptions): Promise<MountedRoute>;
}

/** Runs a route's handler with the last guard every site shares: nothing internal reaches the client. */
export function runRoute(handler: RouteHandler, req: IncomingMessage, res: ServerResponse): void {
  Promise.resolve()
    .then(() => handler(req, res))
    .catch(() => {
      // The handler owns its errors; this is the last guard, and it reveals nothing internal.
      if (!res.headersSent) sendJson(res, 500, { error: 'internal_error' });
      else res.destroy();
    });
}

/** The path of a request URL, without its query; routes are exact paths. */
export function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
