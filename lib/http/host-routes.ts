import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULTS } from '../core/defaults.js';
import { McpPaletteError } from '../core/errors.js';
import { holdBody } from './held-body.js';
import { MAX_FORM_BYTES } from './read-form.js';
import { pathOf, runRoute, type MountOptions, type MountedRoute, type RouteHandler, type RouteSite } from './route-site.js';

export type NextFunction = (error?: unknown) => void;
export type HostMiddleware = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;

/**
 * The part of the hosting HTTP server (Node-RED's `httpNode` Express app) this package needs: a way
 * to put one middleware in front of it, and a way to ask which of its own routes answer a path.
 */
export interface HostServer {
  /** Where the host's routes are mounted on its server (Node-RED's httpNodeRoot), '/' for the root. */
  readonly root: string;
  /**
   * Adds the dispatcher to the host's routes and `holdBodies` in front of everything else on the
   * server (before any body parser of the host). Called once in the life of the host, however
   * often flows are redeployed.
   */
  install(dispatcher: HostMiddleware, holdBodies: HostMiddleware): void;
  /**
   * How to name a route of the host itself (an `http in` node, another palette) that answers
   * `path`, or undefined when none does. Throws when the host's routes cannot be read.
   */
  routeAnswering(path: string): string | undefined;
}

interface HostRoute {
  readonly handler: RouteHandler;
  readonly onYield: ((error: McpPaletteError) => void) | undefined;
}

/**
 * Routes served on the host's server instead of a listener of this package's own. Express routers
 * cannot remove routes, so one dispatcher is installed with the first mount and stays for the life
 * of the host; it serves whatever the live table holds and passes everything else on. A path that a
 * route of the host also answers is refused (at mount) or given up (when a later deploy adds that
 * route), never shadowed silently in either direction.
 */
export class HostRouteTable implements RouteSite {
  readonly key = 'node-red';
  readonly port = undefined;
  private readonly routes = new Map<string, HostRoute>();
  private installed = false;

  constructor(private readonly host: HostServer) {}

  /** Paths are relative to where the host is mounted (Node-RED's httpNodeRoot). */
  async mount(path: string, handler: RouteHandler, options: MountOptions = {}): Promise<MountedRoute> {
    if (this.routes.has(path)) {
      throw new McpPaletteError('node_red_path_conflict', `path ${path} is already served on Node-RED's HTTP server`, { path });
    }
    const conflict = this.conflictFor(path);
    if (conflict) throw conflict;
    if (!this.installed) {
      this.host.install((req, res, next) => this.dispatch(req, res, next), this.holdBodies());
      this.installed = true;
    }
    const route: HostRoute = { handler, onYield: options.onYield };
    this.routes.set(path, route);
    let mounted = true;
    return {
      path,
      unmount: async () => {
        if (!mounted) return;
        mounted = false;
        if (this.routes.get(path) === route) this.routes.delete(path);
      },
    };
  }

  /**
   * After a deploy: a path that a route of the host now answers too is given up (that route gets
   * it) and its owner is told, so the conflict shows in a status rather than in which answer wins.
   */
  recheck(): void {
    for (const [path, route] of [...this.routes]) {
      const conflict = this.conflictFor(path);
      if (!conflict) continue;
      this.routes.delete(path);
      route.onYield?.(conflict);
    }
  }

  /** True once the dispatcher is in place (it is never added twice). */
  get dispatcherInstalled(): boolean {
    return this.installed;
  }

  private conflictFor(path: string): McpPaletteError | undefined {
    let route: string | undefined;
    try {
      route = this.host.routeAnswering(path);
    } catch {
      // Unable to tell whether a path is free means it cannot be served without risking a shadow.
      return new McpPaletteError('node_red_routes_unreadable', `cannot read the routes of Node-RED's HTTP server to check ${path}`, { path });
    }
    if (route === undefined) return undefined;
    return new McpPaletteError('node_red_route_conflict', `path ${path} is also answered by ${route} on Node-RED's HTTP server`, { path, route });
  }

  /**
   * Runs first on the whole server: a request for a path served here has its body read and held
   * (see held-body), so whatever parses bodies on the way (Node-RED's admin app when httpAdminRoot
   * is the same root) cannot consume it, and the route sees the exact bytes under its own limits.
   */
  private holdBodies(): HostMiddleware {
    const prefix = this.host.root.replace(/\/+$/, '');
    return (req, _res, next) => {
      const path = pathOf(req.url);
      const relative = prefix === '' ? path : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
      if (relative === undefined || !this.routes.has(relative) || !hasBody(req)) {
        next();
        return;
      }
      void holdBody(req, HOLD_LIMIT).then(() => next());
    };
  }

  private dispatch(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    const route = this.routes.get(pathOf(req.url));
    if (!route) {
      next();
      return;
    }
    runRoute(route.handler, req, res);
  }
}

/** Every route's own limit is at most this; a larger body is refused by the route with its own answer. */
const HOLD_LIMIT = Math.max(DEFAULTS.maxRequestBodyBytes, MAX_FORM_BYTES);

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const tables = new WeakMap<object, HostRouteTable>();

/**
 * The one table for a host app (keyed by the app object itself): every runtime in one-port mode,
 * and every redeploy, shares it, so the dispatcher is installed once per Node-RED.
 */
export function hostRouteTable(app: object, host: HostServer): HostRouteTable {
  let table = tables.get(app);
  if (!table) {
    table = new HostRouteTable(host);
    tables.set(app, table);
  }
  return table;
}
